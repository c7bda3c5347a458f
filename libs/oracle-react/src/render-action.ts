import type { ReactNode } from 'react'
import type { ActionCallState, AgAction } from '@impact/oracle-client'

export type ChatAction = AgAction<any, any, ReactNode>

const parseOutput = (output: string | undefined): unknown => {
  if (output === undefined) return undefined
  try { return JSON.parse(output) } catch { return output }
}

/** Draws an action call with its action's `render` (null when it has none). */
export function renderActionCall (actions: readonly ChatAction[] | undefined, call: ActionCallState): ReactNode {
  const action = actions?.find((a) => a.name === call.toolName)
  if (action?.render === undefined) return null
  const result = parseOutput(call.output)
  return action.render({
    toolCallId: call.toolCallId,
    args: (call.args ?? {}) as Record<string, unknown>,
    status: call.status,
    ...(result !== undefined ? { result } : {}),
    ...(call.output !== undefined ? { output: call.output } : {}),
    ...(call.error !== undefined ? { error: call.error } : {})
  })
}
