import type { Kysely } from 'kysely'
import type { SharedState } from '@impact/shared-state'
import type { DB } from './db/types.ts'
import type { PluginDecision } from './runtime-plugins/registry.ts'
import type { Approvals } from './services/approvals.ts'
import type { ClientToolPort } from './services/client-tools.ts'
import type { EventBus } from './services/event-bus.ts'
import type { OracleIdentity } from './services/oracle-identity.ts'
import type { RealtimeHub } from './services/realtime/hub.ts'
import type { Revocations } from './services/revocations.ts'
import type { TurnRegistry } from './services/turn-registry.ts'

/**
 * The parts of a built oracle-runtime that tests and embedding code reach (`buildRuntime`): the
 * event bus every turn publishes on, the client tool port, running turns, the WebSocket event core
 * and the revocation list. The app's routes and plugins get what they use as options instead.
 */
export interface Runtime {
  db: Kysely<DB>
  state: SharedState
  identity: OracleIdentity
  bus: EventBus
  clientTools: ClientToolPort
  turns: TurnRegistry
  /** Tool calls waiting for the user's approval. */
  approvals: Approvals
  realtime: RealtimeHub
  /** Revoked delegation CIDs, shared by every replica (DELETE /delegation adds to it). */
  revocations: Revocations
  /** Which plugins run, and why the others do not. */
  pluginDecisions: PluginDecision[]
}
