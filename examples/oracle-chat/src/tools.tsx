import { defineAgAction, defineBrowserTool } from '@impact/oracle-react'
import type { ReactNode } from 'react'

/** Browser tools the agent may run in this tab (try "get_page_title" or "get_local_time"). */
export const browserTools = [
  defineBrowserTool({
    name: 'get_page_title',
    description: 'The title of the web page the user has open',
    schema: { type: 'object', properties: {} },
    handler: () => document.title
  }),
  defineBrowserTool({
    name: 'get_local_time',
    description: 'The current date, time and time zone of the user\'s device',
    schema: { type: 'object', properties: {} },
    handler: () => ({
      iso: new Date().toISOString(),
      local: new Date().toLocaleString(),
      timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone
    })
  })
]

export interface Notice { id: string, text: string }

/** An AG-UI action with a render: try `show_notice {"text":"Hello"}`. */
export function noticeAction (show: (notice: Notice) => void) {
  return defineAgAction<{ text?: string }, { shown: boolean }, ReactNode>({
    name: 'show_notice',
    description: 'Shows a short notice banner to the user',
    schema: {
      type: 'object',
      properties: { text: { type: 'string', description: 'The notice text' } },
      required: ['text']
    },
    handler: ({ text }, { toolCallId }) => {
      if (typeof text !== 'string' || text.trim() === '') throw new Error('text is required')
      show({ id: toolCallId, text: text.slice(0, 200) })
      return { shown: true }
    },
    render: ({ args, status, error }) => (
      <div className='action-card' data-testid='action-card' data-status={status}>
        <strong>show_notice</strong>{' '}
        {status === 'error' ? `failed: ${error ?? ''}` : `“${args.text ?? ''}” ${status === 'done' ? 'shown' : '…'}`}
      </div>
    )
  })
}
