import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify'
import type { Kysely } from 'kysely'
import type { App } from '@impact/service-kit'
import type { SharedState } from '@impact/shared-state'
import type { OracleSigner } from '@impact/ucan'
import type { Config } from '../config.ts'
import type { DB } from '../db/types.ts'
import type { EventBus } from '../services/event-bus.ts'
import type { ServerTool } from '../services/agent/tools.ts'
import type { RevokedDelegation, UserDelegations } from '../services/user-delegations.ts'

export interface PluginAttributes {
  visibility: 'always' | 'on-demand' | 'hidden'
  stability: 'stable' | 'beta' | 'experimental'
  category: 'core' | 'billing' | 'memory' | 'integration' | 'tools'
  defaultEnabled: boolean
  dependencies: string[]
  requiredEnv: Array<keyof Config>
}

export type OracleAsSigner = ReturnType<OracleSigner['withDID']>

export interface PluginContext {
  db: Kysely<DB>
  config: Config
  state: SharedState
  bus: EventBus
  /** Signs as `did`, so a delegation addressed to a did:ixo oracle fits too. Never log or send it. */
  oracle: { did: string, name: string, signer: OracleAsSigner }
  delegations: Pick<UserDelegations, 'of'>
  log: FastifyBaseLogger
}

export interface TurnContext {
  did: string
  sessionId: string
  requestId: string
  timezone: string | undefined
  signal: AbortSignal
}

export type TurnOutcome = 'completed' | 'aborted' | 'failed'

export interface PluginTurnState { prompt?: string, state?: Record<string, unknown> }

/** Runs after authentication (e.g. subscription gating). */
export interface PluginMiddleware {
  /** `METHOD /route/pattern` entries, e.g. `POST /messages/:sessionId`. */
  routes: string[]
  preHandler: (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>
}

export interface RuntimePlugin {
  /** Read at every turn; `sideEffects` tools wait for the user's approval. */
  tools?: ServerTool[]
  /** Registered in their own encapsulated context; authenticated unless listed in getAuthExcludedRoutes. */
  routes?: (app: App) => Promise<void>
  middleware?: PluginMiddleware[]
  /** `METHOD /path`, `/path` (any method), or a `/prefix/*`. */
  getAuthExcludedRoutes?: () => string[]
  loadState?: (turn: TurnContext) => Promise<PluginTurnState | undefined>
  onTurnEnd?: (turn: TurnContext, outcome: TurnOutcome) => Promise<void>
  /** Best effort: awaited before the answer, a failure is only logged. */
  onDelegationRevoked?: (revoked: { did: string, delegations: RevokedDelegation[] }) => Promise<void>
  /** Throws when degraded; advisory only. */
  health?: () => Promise<void>
  close?: () => Promise<void>
}

export interface PluginDefinition {
  name: string
  description: string
  attributes: PluginAttributes
  /** `GET /health` entry: down there means degraded, never out of rotation. */
  health?: string
  setup: (context: PluginContext) => RuntimePlugin | Promise<RuntimePlugin>
}

export interface LoadedPlugin { definition: PluginDefinition, plugin: RuntimePlugin }
