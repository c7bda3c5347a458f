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

/** The parts of a built runtime that tests and embedders reach; routes and plugins get theirs as options. */
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
