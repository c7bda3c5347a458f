import type { ReactNode } from 'react'
import type { ActionCallState, ChatMessage } from '@impact/oracle-react'

export function MessageView ({
  message,
  renderAction
}: {
  message: ChatMessage
  renderAction: (call: ActionCallState) => ReactNode
}) {
  return (
    <article
      className={`message ${message.type}`}
      data-testid='message'
      data-type={message.type}
      data-pending={message.pending === true}
    >
      {message.reasoning !== undefined && message.reasoning !== '' && (
        <details className='reasoning'><summary>Reasoning</summary>{message.reasoning}</details>
      )}
      {message.toolCalls?.map((call) => (
        <div key={call.id} className='tool-card' data-testid='tool-card' data-status={call.status}>
          <strong>{call.name}</strong> {call.status === 'isRunning' ? 'running…' : call.status}
          {call.output !== undefined && <pre>{call.output.slice(0, 500)}</pre>}
        </div>
      ))}
      {message.actionCalls?.map((call) => <div key={call.toolCallId}>{renderAction(call)}</div>)}
      {message.content !== '' && <p className='content'>{message.content}</p>}
      {message.delegationPrompt !== undefined && (
        <p className='authorise' data-testid='delegation-prompt'>{message.delegationPrompt}</p>
      )}
      {message.error !== undefined && <p className='error'>{message.error}</p>}
    </article>
  )
}
