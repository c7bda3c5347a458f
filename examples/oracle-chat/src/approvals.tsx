import { useState } from 'react'
import type { ToolApproval } from '@impact/oracle-react'

export interface ApprovalsProps {
  pending: ToolApproval[]
  approve: (toolCallId: string) => Promise<unknown>
  deny: (toolCallId: string, reason?: string) => Promise<unknown>
}

/** Tool calls that change state wait here for the user: what they would do, Approve, or Deny with a reason. */
export function Approvals ({ pending, approve, deny }: ApprovalsProps) {
  if (pending.length === 0) return null
  return (
    <div className='approvals' aria-label='Waiting for your approval'>
      {pending.map((request) => (
        <ApprovalCard key={request.toolCallId} request={request} approve={approve} deny={deny} />
      ))}
    </div>
  )
}

function ApprovalCard ({ request, approve, deny }: { request: ToolApproval } & Omit<ApprovalsProps, 'pending'>) {
  const [reason, setReason] = useState('')
  const [busy, setBusy] = useState(false)
  const decide = (decision: () => Promise<unknown>) => () => {
    setBusy(true)
    // A failure (decided elsewhere, expired) removes the card and shows in the status line.
    decision().catch(() => {}).finally(() => { setBusy(false) })
  }
  const onApprove = decide(async () => await approve(request.toolCallId))
  const onDeny = decide(async () => await deny(request.toolCallId, reason.trim() === '' ? undefined : reason.trim()))
  return (
    <div className='approval' role='group' data-testid='approval' data-tool={request.toolName}>
      <p className='summary'>{request.summary}</p>
      <p className='meta'>
        {request.toolName} · waits until {new Date(request.expiresAt).toLocaleTimeString()}
      </p>
      <div className='actions'>
        <button type='button' data-testid='approve' disabled={busy} onClick={onApprove}>Approve</button>
        <input
          aria-label='Reason (optional)'
          data-testid='deny-reason'
          placeholder='Reason (optional)'
          value={reason}
          onChange={(e) => { setReason(e.target.value) }}
        />
        <button type='button' data-testid='deny' disabled={busy} onClick={onDeny}>Deny</button>
      </div>
    </div>
  )
}
