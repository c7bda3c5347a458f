import type { Kysely } from 'kysely'
import type { SharedState } from '@impact/shared-state'
import type { UcanVerifier } from '@impact/ucan'
import type { Config } from './config.ts'
import type { DB } from './db/types.ts'
import type { RealtimeHub } from './realtime/hub.ts'
import type { PluginDecision } from './runtime-plugins/registry.ts'
import type { LoadedPlugin } from './runtime-plugins/types.ts'
import type { ChatModel } from './services/agent/model.ts'
import type { ClientToolPort } from './services/client-tools.ts'
import type { Revocations } from './services/revocations.ts'
import type { EventBus } from './services/event-bus.ts'
import type { OracleIdentity } from './services/oracle-identity.ts'
import type { ExecuteTurn } from './services/turn-service.ts'
import type { TurnRegistry } from './services/turn-registry.ts'

/**
 * Everything the routes and the WebSocket gateway share: decorated on the app as `runtime`.
 * The gateway (`realtime`) authenticates handshakes with `verifier`, forwards `bus` events to
 * the session's connections on every replica, and hands client results to `clientTools.resolve`.
 */
export interface Runtime {
  config: Config
  db: Kysely<DB>
  state: SharedState
  identity: OracleIdentity
  verifier: UcanVerifier
  /** Revoked delegation CIDs, shared by every replica (DELETE /delegation adds to it). */
  revocations: Revocations
  bus: EventBus
  clientTools: ClientToolPort
  turns: TurnRegistry
  /** The WebSocket event core (socket.io and /ws): connection stats, and the handshake rule. */
  realtime: RealtimeHub
  model: ChatModel
  /** Model ids clients may choose; the first is the default. */
  models: string[]
  plugins: LoadedPlugin[]
  pluginDecisions: PluginDecision[]
  executeTurn: ExecuteTurn
}

declare module 'fastify' {
  interface FastifyInstance { runtime: Runtime }
}
