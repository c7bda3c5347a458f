import formbody from '@fastify/formbody'
import type { FastifyPluginAsyncTypebox } from '@impact/service-kit'
import type { SharedState } from '@impact/shared-state'
import type { Kysely } from 'kysely'
import type { Config } from '../../config.ts'
import type { DB } from '../../db/types.ts'
import { registerRateLimits } from '../../plugins/rate-limit.ts'
import type { PinVault } from '../../services/pin-vault.ts'
import type { SessionStore } from '../../services/session-store.ts'
import type { UssdEngine } from '../../services/ussd-engine.ts'
import { hubtelRoutes } from '../hubtel/index.ts'
import { accountRoutes } from './accounts.ts'
import { debugRoutes } from './debug.ts'
import { eventRoutes } from './events.ts'
import { sessionRoutes } from './session.ts'

export interface UssdApiOptions {
  config: Config
  state: SharedState
  engine: UssdEngine
  sessions: SessionStore
  /** The accounts' database and PIN vault (support's PIN reset). */
  accounts: { db: Kysely<DB>, vault: PinVault }
}

/**
 * Everything under `/api/ussd`: form bodies (Africa's Talking posts them) and the rate limits
 * apply to this scope only; each child sets the error contract its callers understand.
 */
export const ussdApi: FastifyPluginAsyncTypebox<UssdApiOptions> = async (app, { config, state, engine, sessions, accounts }) => {
  await app.register(formbody, { bodyLimit: 16 * 1024 })
  const phoneLimit = await registerRateLimits(app, config, state)
  await app.register(sessionRoutes, { engine, phoneLimit })
  await app.register(hubtelRoutes, { engine, phoneLimit })
  await app.register(eventRoutes, { engine })
  await app.register(debugRoutes, { config, sessions })
  await app.register(accountRoutes, { config, ...accounts })
}
