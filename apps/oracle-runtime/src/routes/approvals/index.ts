import { Type } from '@sinclair/typebox'
import { ApprovalDecisionSchema, ApprovalParamsSchema, ToolApprovalSchema } from '@impact/schemas'
import type { AuditTrail, FastifyPluginAsyncTypebox } from '@impact/service-kit'
import type { Kysely } from 'kysely'
import { approvalDto } from '../../db/repositories/approvals.ts'
import type { DB } from '../../db/types.ts'
import { callerDid } from '../../plugins/ucan-auth.ts'
import { protectedSchema } from '../../schemas/security.ts'
import type { Approvals } from '../../services/approvals.ts'
import type { OracleIdentity } from '../../services/oracle-identity.ts'
import type { ResumeTurn } from '../../services/turn-resume.ts'
import { callersSession } from '../callers-session.ts'

export interface ApprovalRoutesOptions {
  db: Kysely<DB>
  identity: Pick<OracleIdentity, 'did'>
  approvals: Pick<Approvals, 'decide'>
  resumeTurn: ResumeTurn
  audit: Pick<AuditTrail, 'record'>
}

/** The user's answer to an `approval_request`: the turn waiting for it goes on, wherever it runs. */
export const approvalRoutes: FastifyPluginAsyncTypebox<ApprovalRoutesOptions> = async (app, options) => {
  const { db, identity, approvals, resumeTurn, audit } = options

  app.post('/approvals/:toolCallId', {
    schema: protectedSchema('approvals', {
      summary: 'Approve or deny a tool call that waits for the user (`approval_request`): the turn goes on, ' +
        'running the tool or telling the agent it was declined',
      description: 'Only the session\'s user may decide (another user\'s session is a 404, like a missing one). ' +
        '409 once the request was decided, expired or cancelled. When the turn that asked is gone (its server ' +
        'restarted), it resumes on this server and its events arrive over the session socket.',
      params: ApprovalParamsSchema,
      body: ApprovalDecisionSchema,
      response: {
        200: Type.Ref(ToolApprovalSchema),
        400: Type.Ref('ErrorBody'),
        404: Type.Ref('ErrorBody'),
        409: Type.Ref('ErrorBody')
      }
    })
  }, async (request) => {
    const did = callerDid(request)
    const { sessionId, approved, reason } = request.body
    await callersSession(db, identity.did, request, sessionId)
    const decided = await approvals.decide(did, { sessionId, toolCallId: request.params.toolCallId, approved, reason })
    // The user's reason is their own text: only the decision is recorded.
    await audit.record({
      action: 'approval.decided',
      actor: did,
      subject: request.params.toolCallId,
      details: { approved, sessionId, tool: decided.approval.toolName }
    })
    if (decided.resume) {
      resumeTurn(decided.approval).catch((err: unknown) => {
        request.log.error({ err, sessionId }, 'resuming the turn after an approval failed')
      })
    }
    return approvalDto(decided.approval)
  })
}
