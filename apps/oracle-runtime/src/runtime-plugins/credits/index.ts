import type { PaymentRequired } from '@impact/schemas'
import { chargeCredits, claimsToPay, ensureAccount } from '../../db/repositories/credits.ts'
import type { PluginDefinition } from '../types.ts'
import { creditRoutes, OPERATOR_ROUTES } from './routes.ts'

/**
 * Credit gating. Sending a message needs a balance that covers CREDITS_PER_MESSAGE; otherwise the
 * request is refused before any stream opens with 402 and the ids of the user's outstanding
 * payment claims (`claims` for the SDK's streaming path, `outstandingClaims` for its JSON path),
 * raising a top-up claim when none is open. Answered turns (completed, or aborted after the model
 * started) are charged. Credits come from CREDITS_INITIAL_GRANT, operator grants
 * (`POST /credits/grants`) and settled claims (`POST /credits/claims/:id/settle`).
 */
export const creditsPlugin: PluginDefinition = {
  name: 'credits',
  description: 'Subscription gating: a credit balance per user, charged per message, topped up through payment claims',
  attributes: {
    visibility: 'always',
    stability: 'beta',
    category: 'billing',
    defaultEnabled: false,
    dependencies: [],
    requiredEnv: ['CREDITS_ADMIN_TOKEN']
  },
  setup ({ db, config }) {
    const cost = config.CREDITS_PER_MESSAGE
    return {
      routes: creditRoutes(db, config),
      getAuthExcludedRoutes: () => OPERATOR_ROUTES,
      middleware: [
        {
          routes: ['POST /messages/:sessionId'],
          async preHandler (request, reply) {
            const did = request.auth?.did
            if (did === undefined || cost === 0) return
            const balance = await ensureAccount(db, did, config.CREDITS_INITIAL_GRANT)
            if (balance >= cost) return
            const claims = (await claimsToPay(db, did, config.CREDITS_TOPUP_AMOUNT)).map((c) => c.claimId)
            return await reply.code(402).send({
              statusCode: 402,
              error: 'Payment Required',
              code: 'ORACLE_PAYMENT_REQUIRED',
              message: `Payment required: your balance of ${balance} credits does not cover a message (${cost}). ` +
                'Pay the outstanding claims to continue.',
              claims,
              outstandingClaims: claims
            } satisfies PaymentRequired)
          }
        }
      ],
      async onTurnEnd (turn, outcome) {
        if (outcome !== 'failed' && cost > 0) await chargeCredits(db, turn.did, cost, turn.requestId)
      }
    }
  }
}
