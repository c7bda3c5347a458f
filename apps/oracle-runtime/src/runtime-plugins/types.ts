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

/** How a plugin presents itself (spec: "Plugin: user-preferences" attributes). */
export interface PluginAttributes {
  visibility: 'always' | 'on-demand' | 'hidden'
  stability: 'stable' | 'beta' | 'experimental'
  category: 'core' | 'billing' | 'memory' | 'integration' | 'tools'
  /** Enabled unless the app option `features` says otherwise. */
  defaultEnabled: boolean
  /** Plugins that must be enabled too. */
  dependencies: string[]
  /** Config keys that must be set for the plugin to run. */
  requiredEnv: Array<keyof Config>
}

/** The oracle's key signing as the oracle's DID (its did:key, or ORACLE_DID). */
export type OracleAsSigner = ReturnType<OracleSigner['withDID']>

/** What every plugin can reach when it is set up. */
export interface PluginContext {
  db: Kysely<DB>
  config: Config
  state: SharedState
  bus: EventBus
  /**
   * The oracle: its DID, name and signer, the issuer of the invocations it sends for a user (its key,
   * signing as `did`, so a delegation addressed to a did:ixo oracle fits too). Never log or send it.
   */
  oracle: { did: string, name: string, signer: OracleAsSigner }
  /** Each user's stored delegation to the oracle: the proof of calls made as that user. */
  delegations: Pick<UserDelegations, 'of'>
  log: FastifyBaseLogger
}

/** One turn, as plugins see it. */
export interface TurnContext {
  did: string
  sessionId: string
  requestId: string
  timezone: string | undefined
  signal: AbortSignal
}

export type TurnOutcome = 'completed' | 'aborted' | 'failed'

/** State a plugin loads before the agent runs: a system-prompt section and/or data for tools. */
export interface PluginTurnState { prompt?: string, state?: Record<string, unknown> }

/** A route-scoped hook that runs after authentication (e.g. subscription gating). */
export interface PluginMiddleware {
  /** `METHOD /route/pattern` entries, e.g. `POST /messages/:sessionId`. */
  routes: string[]
  preHandler: (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>
}

/** What a set-up plugin contributes. Every part is optional. */
export interface RuntimePlugin {
  /**
   * Server tools, read at every turn. One that changes state says `sideEffects` (each call then waits for the
   * user's approval, worded by `summarize`); `precheck` ends a call bound to fail before the user is asked.
   */
  tools?: ServerTool[]
  /** Registered in their own encapsulated context; authenticated unless listed in getAuthExcludedRoutes. */
  routes?: (app: App) => Promise<void>
  middleware?: PluginMiddleware[]
  /** Route specs that skip UCAN auth: `METHOD /path`, `/path` (any method), or a `/prefix/*`. */
  getAuthExcludedRoutes?: () => string[]
  loadState?: (turn: TurnContext) => Promise<PluginTurnState | undefined>
  onTurnEnd?: (turn: TurnContext, outcome: TurnOutcome) => Promise<void>
  /**
   * The user revoked their delegations at the oracle (`DELETE /delegation`), e.g. to tell the services
   * they were used with. Best effort: awaited before the answer, a failure is logged and not the user's.
   */
  onDelegationRevoked?: (revoked: { did: string, delegations: RevokedDelegation[] }) => Promise<void>
  /** Advisory health check (throws when degraded), reported under the definition's `health` name. */
  health?: () => Promise<void>
  close?: () => Promise<void>
}

export interface PluginDefinition {
  name: string
  description: string
  attributes: PluginAttributes
  /** Entry of `GET /health` its `health` check fills: down there means degraded, never out of rotation. */
  health?: string
  setup: (context: PluginContext) => RuntimePlugin | Promise<RuntimePlugin>
}

export interface LoadedPlugin { definition: PluginDefinition, plugin: RuntimePlugin }
