import { Type } from '@sinclair/typebox'
import { createAuditStore } from '@impact/persistence'
import { ChatSessionSchema, MessageDtoSchema, ToolApprovalSchema } from '@impact/schemas'
import {
  auditRoutes, createApp, metricsOf, registerAudit, staticBearerGuard, tracingOf, type App
} from '@impact/service-kit'
import { rateLimitBudgets, registerRateLimits } from '@impact/service-kit/rate-limits'
import { createSharedState, type SharedState } from '@impact/shared-state'
import { createBlocksyncResolver, createUcanVerifier, type DidKeyResolver } from '@impact/ucan'
import { bareDelegationAuth, featuresFromEnv, llmProvider, type Config } from './config.ts'
import { openAppDatabase } from './db/open.ts'
import { RateLimitedError } from './errors.ts'
import { REALTIME_PUBLIC_ROUTES, realtimePlugin } from './plugins/realtime/index.ts'
import { ucanAuthPlugin } from './plugins/ucan-auth.ts'
import { approvalRoutes } from './routes/approvals/index.ts'
import { delegationRoutes } from './routes/delegation/index.ts'
import { historyRoutes } from './routes/history/index.ts'
import { messageRoutes } from './routes/messages/index.ts'
import { modelRoutes } from './routes/models/index.ts'
import { sessionRoutes } from './routes/sessions/index.ts'
import {
  BUILTIN_PLUGINS, mergeFeatures, resolvePlugins, routeMatcher, type LoadedPlugin, type PluginDefinition
} from './runtime-plugins/index.ts'
import { SECURITY_SCHEMES } from './schemas/security.ts'
import type { Runtime } from './runtime.ts'
import type { ChatModel } from './services/agent/model.ts'
import { createOfflineModel } from './services/agent/offline-model.ts'
import { createOpenAiModel } from './services/agent/openai-model.ts'
import { createProviderProbe } from './services/agent/provider-health.ts'
import { createApprovals } from './services/approvals.ts'
import { createClientToolPort } from './services/client-tools.ts'
import { createRealtimeHub } from './services/realtime/hub.ts'
import { createEventBus } from './services/event-bus.ts'
import { createOracleMetrics } from './services/metrics.ts'
import { loadOracleIdentity } from './services/oracle-identity.ts'
import { createRevocations } from './services/revocations.ts'
import { createTurnRegistry } from './services/turn-registry.ts'
import { createTurnResumer } from './services/turn-resume.ts'
import { createTurnService } from './services/turn-service.ts'
import { createUserDelegations, type RevokedDelegation } from './services/user-delegations.ts'

export const APP_NAME = 'oracle-runtime'
export { loadConfig, type Config } from './config.ts'
export type { Runtime } from './runtime.ts'
export type { PluginDefinition } from './runtime-plugins/index.ts'
export { ToolFailure, type ServerTool, type ToolContext } from './services/agent/tools.ts'

export interface AppOptions {
  /** Turn plugins on or off by name, e.g. `{ 'user-preferences': false, credits: true }`; wins over ORACLE_FEATURES. */
  features?: Record<string, boolean>
  /** Extra public routes: `METHOD /path`, `/path` or `/prefix/*`. */
  authExcludedRoutes?: string[]
  /** Plugins of this deployment, next to the built-in ones. */
  plugins?: PluginDefinition[]
  /** Key resolver for did:ixo principals (default: Blocksync when BLOCKSYNC_GRAPHQL_URL is set). */
  resolveDidKey?: DidKeyResolver
  /** A model other than the configured one (embedding, tests). */
  model?: ChatModel
  /** Namespace of this app's shared-state keys and channels (default `oracle:`); replicas of one oracle share it. */
  statePrefix?: string
  /**
   * A shared state owned by the caller (embedding, tests), used instead of one made from REDIS_URL;
   * not closed by the app.
   */
  sharedState?: SharedState
}

// GET /audit has its own operator token instead of UCAN auth.
const PUBLIC_ROUTES = ['/', '/health', '/health/live', '/docs', '/docs/*', 'GET /models', 'GET /audit']
/** WebSocket limits: a client message (tool results included) up to 1 MiB; protocol heartbeats every 25 s. */
const REALTIME = { maxPayloadBytes: 1024 * 1024, heartbeatMs: 25_000 }
const CORS_HEADERS = [
  'Content-Type', 'Authorization', 'x-ucan-delegation', 'x-matrix-access-token', 'x-matrix-homeserver', 'x-did',
  'x-request-id', 'x-auth-type', 'x-timezone', 'traceparent', 'tracestate'
]
const EXPOSED_HEADERS = [
  'X-Request-Id', 'Retry-After', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'
]

/** Builds oracle-runtime unlistened; server.ts uses it (tests through `buildRuntime`). */
export async function buildApp (config: Config, options: AppOptions = {}): Promise<App> {
  return (await buildRuntime(config, options)).app
}

/** The app and the parts it is made of, which tests and embedding code reach (its routes get theirs as options). */
export async function buildRuntime (config: Config, options: AppOptions = {}): Promise<{ app: App, runtime: Runtime }> {
  // Misconfigured plugins stop the app before anything is opened.
  const definitions = [...BUILTIN_PLUGINS, ...(options.plugins ?? [])]
  const features = mergeFeatures(definitions, featuresFromEnv(config), options.features)
  const resolved = resolvePlugins(definitions, features, config)
  const database = await openAppDatabase(config)
  const { db } = database
  const prefix = options.statePrefix ?? 'oracle:'
  const state = options.sharedState ?? createSharedState({ url: config.REDIS_URL, prefix })
  const cleanup: Array<() => Promise<void>> = [
    async () => { if (options.sharedState === undefined) await state.close() },
    async () => { await database.close() }
  ]
  const closeAll = async () => { for (const step of cleanup.splice(0)) await step().catch(() => {}) }
  try {
    const identity = await loadOracleIdentity(config)
    const revocations = createRevocations({ db, state })
    const resolveDidKey = options.resolveDidKey ?? (config.BLOCKSYNC_GRAPHQL_URL !== undefined
      ? createBlocksyncResolver({ url: config.BLOCKSYNC_GRAPHQL_URL })
      : undefined)
    const verifier = createUcanVerifier({
      oracleDid: identity.did,
      oracleKeyDid: identity.keyDid,
      maxInvocationTtlSeconds: config.UCAN_AUTH_MAX_TTL_SECONDS,
      maxDelegationTtlSeconds: config.UCAN_DELEGATION_MAX_TTL_SECONDS,
      isRevoked: revocations.isRevoked,
      ...(resolveDidKey !== undefined ? { resolveDidKey } : {})
    })
    const provider = llmProvider(config) === 'openai'
      ? { baseUrl: config.LLM_BASE_URL as string, apiKey: config.LLM_API_KEY }
      : undefined
    const model = options.model ?? (provider !== undefined
      ? createOpenAiModel({ ...provider, timeoutMs: config.LLM_TIMEOUT_MS })
      : createOfflineModel())
    cleanup.unshift(async () => { await model.close() })
    // Plugins are set up after the app exists; their advisory checks are looked up when /health runs.
    const plugins: LoadedPlugin[] = []
    const pluginHealth = Object.fromEntries(resolved.enabled.flatMap((definition) => definition.health === undefined
      ? []
      : [[definition.health, async () => {
          await plugins.find((p) => p.definition === definition)?.plugin.health?.()
        }]]))
    const models = model.kind === 'offline'
      ? ['offline']
      : (config.LLM_MODELS ?? config.LLM_MODEL).split(',').map((m) => m.trim()).filter((m) => m !== '')

    const app = await createApp({
      config,
      name: APP_NAME,
      docs: {
        title: 'Oracle runtime',
        version: '0.1.0',
        description: 'Chat sessions, messages (JSON or SSE), UCAN auth, runtime events ' +
          'and plugins for AI oracle agents.',
        securitySchemes: SECURITY_SCHEMES
      },
      cors: {
        defaultOrigin: '*',
        allowedHeaders: CORS_HEADERS,
        exposedHeaders: EXPOSED_HEADERS,
        methods: ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'],
        maxAge: 600
      },
      health: {
        checks: { database: async () => { await database.ready() }, sharedState: async () => { await state.ping() } },
        // The app serves without its model (errors per turn) or a plugin's remote: degraded, not out of rotation.
        advisory: {
          ...(provider !== undefined
            ? { modelProvider: createProviderProbe({ ...provider, cacheMs: config.LLM_HEALTH_CACHE_MS }) }
            : {}),
          ...pluginHealth
        },
        landing: { message: `${APP_NAME} is running`, extra: () => ({ oracleDid: identity.did }) }
      }
    })
    // Until buildRuntime returns, a failure closes the app (which runs onClose below) and then the rest.
    const closeApp = async () => { await app.close() }
    cleanup.unshift(closeApp)

    const bus = createEventBus((err) => app.log.error({ err }, 'event subscriber failed'))
    const clientTools = createClientToolPort({
      bus,
      state,
      timeouts: { browser: config.BROWSER_TOOL_TIMEOUT_MS, action: config.ACTION_TIMEOUT_MS }
    })
    const turns = createTurnRegistry(state, { ownerTtlMs: config.TURN_OWNER_TTL_MS })
    const approvals = createApprovals({
      db,
      state,
      bus,
      log: app.log.child({ component: 'approvals' }),
      owner: turns.owner,
      alive: turns.alive,
      timeoutMs: config.APPROVAL_TIMEOUT_MS
    })
    await clientTools.start()
    await turns.start()
    await revocations.start(app.log.child({ component: 'revocations' }))
    const delegations = createUserDelegations({ db, revocations })
    // Delegations are addressed to the oracle's DID: a did:ixo oracle signs with its key under that DID.
    const oracleSigner = identity.did === identity.keyDid
      ? identity.signer
      : identity.signer.withDID(identity.did as `did:${string}:${string}`)

    for (const definition of resolved.enabled) {
      const plugin = await definition.setup({
        db,
        config,
        state,
        bus,
        oracle: { did: identity.did, name: config.ORACLE_NAME, signer: oracleSigner },
        delegations,
        log: app.log.child({ plugin: definition.name })
      })
      plugins.push({ definition, plugin })
    }
    const agent = {
      model,
      bus,
      clientTools,
      maxSteps: config.AGENT_MAX_STEPS,
      toolTimeoutMs: config.TOOL_TIMEOUT_MS,
      context: { maxChars: config.CONTEXT_MAX_CHARS, toolOutputMaxChars: config.TOOL_OUTPUT_MAX_CHARS }
    }
    const auth = {
      verifier,
      allowBareDelegation: bareDelegationAuth(config),
      maxDelegationTtlSeconds: config.UCAN_DELEGATION_MAX_TTL_SECONDS
    }
    const realtime = createRealtimeHub({
      ...auth,
      db,
      oracleDid: identity.did,
      revocations,
      maxConnections: config.REALTIME_MAX_CONNECTIONS,
      bus,
      clientTools,
      state,
      log: app.log.child({ component: 'realtime' }),
      tracing: tracingOf(app)
    })
    const metrics = createOracleMetrics(metricsOf(app).registry, {
      bus, plugins, sockets: () => realtime.stats().totalConnections
    })
    const executeTurn = metrics.turns(createTurnService({
      db, agent, plugins, approvals, oracleName: config.ORACLE_NAME, log: app.log
    }))
    const resumeTurn = createTurnResumer({ db, turns, approvals, executeTurn, log: app.log })

    // Per IP before UCAN auth runs (its onRequest hook comes next), per DID once it named one.
    const budgets = rateLimitBudgets(config)
    await registerRateLimits(app, {
      state,
      namespace: `${prefix}rl:`,
      ...budgets,
      principal: { ...budgets.principal, label: 'DID', of: (request) => request.auth?.did },
      error: (reason, seconds) => new RateLimitedError(reason, seconds)
    })
    const audit = registerAudit(app, {
      sink: createAuditStore({ db, table: 'oracle_audit_events', retentionDays: config.AUDIT_RETENTION_DAYS }),
      // The audit route and the credits plugin's grant and settle routes.
      operatorSchemes: ['operatorToken'],
      refusals: true
    })
    const isPublic = routeMatcher([
      ...PUBLIC_ROUTES,
      ...REALTIME_PUBLIC_ROUTES,
      ...plugins.flatMap(({ plugin }) => plugin.getAuthExcludedRoutes?.() ?? []),
      ...(options.authExcludedRoutes ?? [])
    ])
    await app.register(ucanAuthPlugin, { ...auth, isPublic })

    const middleware = plugins.flatMap(({ plugin }) =>
      (plugin.middleware ?? []).map((m) => ({ ...m, applies: routeMatcher(m.routes) })))
    if (middleware.length > 0) {
      app.addHook('preHandler', async (request, reply) => {
        const route = request.routeOptions.url
        if (route === undefined || request.auth === null) return
        for (const m of middleware) {
          if (!m.applies(request.method, route)) continue
          await m.preHandler(request, reply)
          if (reply.sent) return reply
        }
      })
    }

    app.addSchema(ChatSessionSchema)
    app.addSchema(MessageDtoSchema)
    app.addSchema(ToolApprovalSchema)
    await app.register(sessionRoutes, { db, identity, config, turns })
    await app.register(messageRoutes, {
      db, identity, config, models, turns, bus, executeTurn, approvals, sseStreams: metrics.sse
    })
    await app.register(historyRoutes, { db, identity, approvals })
    await app.register(approvalRoutes, { db, identity, approvals: metrics.approvals(approvals), resumeTurn, audit })
    const onDelegationRevoked = async (revoked: { did: string, delegations: RevokedDelegation[] }) => {
      await Promise.all(plugins.map(async ({ definition, plugin }) => {
        await plugin.onDelegationRevoked?.(revoked).catch((err: unknown) => {
          app.log.warn({ err, plugin: definition.name, did: revoked.did }, 'plugin revocation hook failed')
        })
      }))
    }
    await app.register(delegationRoutes, { db, verifier, revocations, config, onDelegationRevoked, audit })
    if (config.ORACLE_OPERATOR_TOKEN !== undefined) {
      await app.register(auditRoutes, {
        trail: audit,
        url: '/audit',
        onRequest: staticBearerGuard([config.ORACLE_OPERATOR_TOKEN]),
        tags: ['operator'],
        security: [{ operatorToken: [] }],
        errors: { 400: Type.Ref('ErrorBody'), 401: Type.Ref('ErrorBody') }
      })
    }
    await app.register(modelRoutes, { models, model })
    for (const { plugin } of plugins) if (plugin.routes !== undefined) await app.register(plugin.routes)
    const connectTimeoutMs = config.REALTIME_HANDSHAKE_TIMEOUT_MS
    await app.register(realtimePlugin, { hub: realtime, ...REALTIME, connectTimeoutMs })

    app.addHook('preClose', async () => {
      // Open streams end with `done` rather than hanging until the grace period runs out.
      await turns.close()
    })
    // Decisions taken while no turn waited (a restart) are acted on from now on.
    await approvals.start(resumeTurn)
    app.addHook('onClose', async () => {
      await approvals.close()
      for (const { plugin } of plugins) await plugin.close?.().catch(() => {})
      await clientTools.close()
      await revocations.close()
      const self = cleanup.indexOf(closeApp)
      if (self >= 0) cleanup.splice(self, 1)
      await closeAll()
    })
    app.log.debug({ plugins: resolved.decisions }, 'plugins resolved')
    const pluginDecisions = resolved.decisions
    const runtime: Runtime = {
      db, state, identity, bus, clientTools, turns, approvals, realtime, revocations, pluginDecisions
    }
    return { app, runtime }
  } catch (error) {
    await closeAll()
    throw error
  }
}
