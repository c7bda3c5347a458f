import { Type } from '@sinclair/typebox'
import { staticBearerGuard, type AuditTrail, type FastifyPluginAsyncTypebox } from '@impact/service-kit'
import type { Kysely } from 'kysely'
import type { Config } from '../../config.ts'
import { findAccount, resetPin } from '../../db/accounts.repository.ts'
import type { DB } from '../../db/types.ts'
import { UssdAccountNotFoundError } from '../../errors.ts'
import { PinResetSchema } from '../../schemas/ussd.ts'
import { normaliseCustomerId } from '../../services/customer-id.ts'
import { temporaryPin, type PinVault } from '../../services/pin-vault.ts'
import type { SmsService } from '../../services/sms/sms-service.ts'

/** How long support's temporary PIN is good for choosing a new one. */
export const TEMPORARY_PIN_TTL_MS = 24 * 60 * 60 * 1000

/** Who at support asked for the reset, for the audit line (an agent id or email, plain characters). */
const AGENT = Type.String({
  pattern: '^[A-Za-z0-9._@+-]{1,64}$',
  description: 'Support agent id or email, logged with the reset'
})

/**
 * `POST /api/ussd/accounts/:customerId/pin-reset`: support's temporary PIN. It can take over any account,
 * so it has its own token (SUPPORT_TOKEN, without which the route does not exist).
 */
export interface PinResetRoutesOptions {
  config: Config
  db: Kysely<DB>
  vault: PinVault
  sms: Pick<SmsService, 'queueNotice'>
  audit: Pick<AuditTrail, 'record'>
}

export const pinResetRoutes: FastifyPluginAsyncTypebox<PinResetRoutesOptions> = async (app, options) => {
  const { config, db, vault, sms, audit } = options
  if (config.SUPPORT_TOKEN === undefined) return
  app.post('/accounts/:customerId/pin-reset', {
    schema: {
      tags: ['operator'],
      summary: 'Unlock an account with a temporary PIN',
      description: 'Unlocks the account and issues a temporary 5-digit PIN for support to hand to the user; with ' +
        'SMS on it is also sent to the account\'s registered phone, in its language (`smsQueued`). ' +
        'At login the temporary PIN only leads to choosing a new PIN, within 24 hours; the account\'s previous PIN ' +
        'is refused there.',
      security: [{ supportToken: [] }],
      params: Type.Object({
        customerId: Type.String({ pattern: '^[Cc][0-9A-Fa-f]{8}$', description: 'Customer id, e.g. C1A2B3C4D' })
      }),
      headers: Type.Object({ 'x-support-agent': AGENT }),
      response: {
        200: PinResetSchema,
        400: { $ref: 'ErrorBody#' },
        401: { $ref: 'ErrorBody#' },
        404: { $ref: 'ErrorBody#' },
        429: { $ref: 'ErrorBody#' },
        503: { $ref: 'ErrorBody#' }
      }
    },
    // Before validation: without the token, nothing about the request is answered.
    onRequest: [staticBearerGuard([config.SUPPORT_TOKEN])]
  }, async (request, reply) => {
    const customerId = normaliseCustomerId(request.params.customerId) ?? ''
    const pin = temporaryPin()
    const expiresAt = new Date(Date.now() + TEMPORARY_PIN_TTL_MS)
    if (!(await resetPin(db, customerId, await vault.seal(pin), vault.keyId, expiresAt))) {
      throw new UssdAccountNotFoundError(customerId)
    }
    const agent = request.headers['x-support-agent']
    request.log.info({ customerId, agent }, 'temporary PIN issued')
    await audit.record({ action: 'pin.reset', actor: agent, subject: customerId, details: { expiresAt } })
    const account = await findAccount(db, customerId)
    const hours = Math.round(TEMPORARY_PIN_TTL_MS / 3_600_000)
    const notice = { kind: 'temporaryPin', app: config.USSD_APP_NAME, customerId, pin, hours, expiresAt } as const
    const smsQueued = account !== undefined && await sms.queueNotice(account.phoneNumber, notice)
    // The answer holds a PIN: no cache may keep it.
    reply.header('cache-control', 'no-store')
    return { customerId, temporaryPin: pin, expiresAt: expiresAt.toISOString(), smsQueued }
  })
}
