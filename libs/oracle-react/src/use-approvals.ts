import { useCallback, useState, type RefObject } from 'react'
import { OracleRequestError, type OracleClient, type ToolApproval } from '@impact/oracle-client'
import { applyApproval } from './chat-state.ts'

export interface ApprovalsOptions {
  client: OracleClient
  /** The session decisions are sent for, read at call time. */
  session: RefObject<{ sessionId: string | undefined }>
  fail: (caught: unknown) => void
}

/** A session's tool calls waiting for the user, from history, stream and socket, and the user's decisions. */
export function useApprovals ({ client, session, fail }: ApprovalsOptions) {
  const [pending, setPending] = useState<ToolApproval[]>([])
  /** The session has had an approval request: its socket stays on (see `UseChatOptions.socket`). */
  const [hadApprovals, setHadApprovals] = useState(false)
  const note = useCallback((approval: ToolApproval) => {
    setHadApprovals(true)
    setPending((list) => applyApproval(list, approval))
  }, [])
  /** What the oracle lists as waiting (a history response): it replaces what events said so far. */
  const list = useCallback((listed: ToolApproval[] | undefined) => {
    if (listed === undefined) return
    if (listed.length > 0) setHadApprovals(true)
    setPending(listed)
  }, [])
  const reset = useCallback(() => {
    setPending([])
    setHadApprovals(false)
  }, [])

  const decide = useCallback(async (toolCallId: string, approved: boolean, reason?: string) => {
    const id = session.current.sessionId
    if (id === undefined) throw new Error('useChat has no sessionId')
    try {
      const decided = await client.approve(toolCallId, { sessionId: id, approved, reason })
      if (id === session.current.sessionId) note(decided)
      return decided
    } catch (caught) {
      // Decided elsewhere, expired or gone: it waits no more either way.
      const closed = caught instanceof OracleRequestError && (caught.status === 404 || caught.status === 409)
      if (closed) setPending((list) => list.filter((a) => a.toolCallId !== toolCallId))
      fail(caught)
      throw caught
    }
  }, [client, session, note, fail])
  const approve = useCallback(async (toolCallId: string) => await decide(toolCallId, true), [decide])
  const deny = useCallback(async (toolCallId: string, reason?: string) => await decide(toolCallId, false, reason),
    [decide])

  return { pending, hadApprovals, note, list, reset, approve, deny }
}
