import {
  auditRoutes, createApp, metricsOf, queryTimer, registerAudit, tracingOf, type App, type CreateAppOptions
} from '@impact/service-kit'
import { rateLimitBudgets, registerRateLimits } from '@impact/service-kit/rate-limits'
import { createAuditStore, MEMORY_DATA_DIR } from '@impact/persistence'
import { Type } from '@sinclair/typebox'
import { createSharedState } from '@impact/shared-state'
import { createBlocksyncResolver, createUcanVerifier, loadServiceIdentity } from '@impact/ucan'
import { externalClassMethods, type Config } from './config.ts'
import { openAppDatabase } from './db/open.ts'
import { DomainRateLimitedError } from './errors.ts'
import { apiKeyAuthPlugin, authorize, keyIdOf } from './plugins/auth.ts'
import { accountRoutes } from './routes/accounts/index.ts'
import { apiKeyRoutes } from './routes/api-keys/index.ts'
import { domainRoutes } from './routes/domains/index.ts'
import { eventRoutes } from './routes/events/index.ts'
import { identifierRoutes } from './routes/identifiers/index.ts'
import { graphqlRoutes } from './routes/graphql/index.ts'
import { proposalRoutes } from './routes/proposals/index.ts'
import { revocationRoutes } from './routes/revocations/index.ts'
import { webhookRoutes } from './routes/webhooks/index.ts'
import { errorResponses, KEY_SECURITY, SECURITY_SCHEMES } from './schemas/security.ts'
import { createAccountService } from './services/accounts.ts'
import { createApiKeyService } from './services/api-keys.ts'
import { systemClock, type Clock } from './services/clock.ts'
import { resolveAdminKey } from './services/dev-admin-key.ts'
import { startDeliveryWorker } from './services/delivery-worker.ts'
import { createBatchService } from './services/domain-batch.ts'
import { createDomainService } from './services/domains.ts'
import { createEventFeed } from './services/events.ts'
import { createGovernanceService } from './services/governance.ts'
import { createIdentifierService } from './services/identifiers.ts'
import { createDomainMetrics } from './services/metrics.ts'
import { startSweeper } from './services/sweeper.ts'
import { createWebhookService } from './services/webhooks.ts'
import { createUcanRevocationService } from './services/ucan-revocations.ts'
import { anyUcanRevoked } from './db/ucan-revocation.repository.ts'

export const APP_NAME = 'domain-api'

export interface BuildOptions {
  /** The registry's clock (tests move it to cross voting periods and validity ends without sleeping). */
  clock?: Clock
  /** Where logs go instead of stdout (tests that check what is logged). */
  logStream?: NonNullable<CreateAppOptions['logger']>['stream']
  /** Namespace of the shared-state keys and channels (default `domain-api:`); replicas share it. */
  statePrefix?: string
}

/** Builds domain-api unlistened; tests and server.ts share it. */
export async function buildApp (config: Config, options: BuildOptions = {}): Promise<App> {
  const clock = options.clock ?? systemClock
  // Queries are timed once the app's metrics registry exists (it comes with the app).
  let timeQuery: ((event: Parameters<ReturnType<typeof queryTimer>>[0]) => void) | undefined
  const database = await openAppDatabase(config, { log: (event) => { timeQuery?.(event) } })
  const prefix = options.statePrefix ?? `${APP_NAME}:`
  const state = createSharedState({ url: config.REDIS_URL, prefix })
  try {
    // The registry's own DID: the audience of every UCAN invocation it accepts (never logged: the key).
    const identity = await loadServiceIdentity({
      privateKey: config.DOMAIN_API_PRIVATE_KEY,
      dataDir: config.DATA_DIR === MEMORY_DATA_DIR ? undefined : config.DATA_DIR,
      fileName: 'domain-api-private-key'
    })
    const app = await createApp({
      config,
      name: APP_NAME,
      docs: {
        title: 'Domain API',
        version: '0.1.0',
        description: 'Registry of domains (DIDs of real-world entities) with API keys ' +
          'and verification by governance vote.',
        securitySchemes: SECURITY_SCHEMES
      },
      health: {
        checks: {
          database: async () => { await database.ready() },
          ...(state.kind === 'redis' ? { redis: async () => { await state.ping() } } : {})
        },
        landing: {
          message: 'domain-api is running',
          extra: () => ({ did: identity.did }),
          properties: {
            did: Type.String({ description: 'This registry\'s DID: the audience of UCAN invocations sent to it' })
          }
        }
      },
      // Domain bodies are small (metadata is capped at 16 KiB).
      bodyLimit: 64 * 1024,
      // A DID being resolved may be long (did:web paths, percent-encoded); the resolver answers it, not the router.
      maxParamLength: 1024,
      ...(options.logStream !== undefined ? { logger: { stream: options.logStream } } : {})
    })
    const { registry } = metricsOf(app)
    timeQuery = queryTimer(registry)
    await app.register(apiKeyAuthPlugin)
    const retentionDays = config.AUDIT_RETENTION_DAYS
    const audit = registerAudit(app, {
      sink: createAuditStore({ db: database.db, table: 'audit_events', retentionDays }),
      // The admin-only resources: every request to them is recorded, and every refused credential anywhere.
      operatorTags: ['accounts', 'api keys', 'webhooks', 'audit'],
      operatorOf: keyIdOf,
      refusals: true
    })
    const budgets = rateLimitBudgets(config)
    await registerRateLimits(app, {
      state,
      namespace: `${prefix}rl:`,
      ...budgets,
      principal: { ...budgets.principal, label: 'API key', of: keyIdOf },
      error: (reason, seconds) => new DomainRateLimitedError(reason, seconds)
    })

    const adminKey = resolveAdminKey(config)
    if (adminKey?.generatedAt !== undefined) {
      app.log.info({ file: adminKey.generatedAt }, 'development admin API key (DOMAIN_API_ADMIN_KEY is unset)')
    }
    if (adminKey === undefined) app.log.warn('DOMAIN_API_ADMIN_KEY is unset: no key can issue API keys')

    const { db } = database
    const metrics = createDomainMetrics(registry, db)
    const idempotencyTtlMs = config.IDEMPOTENCY_TTL_SECONDS * 1000
    const accounts = createAccountService({
      db,
      state,
      clock,
      log: app.log,
      cacheTtlMs: config.API_KEY_CACHE_TTL_SECONDS * 1000
    })
    await accounts.start()
    const verifier = createUcanVerifier({
      oracleDid: identity.did,
      oracleKeyDid: identity.keyDid,
      // Asked on every verification, cached verdicts included, so a revocation lands on the next request.
      isRevoked: async (cids) => await anyUcanRevoked(db, cids),
      ...(config.BLOCKSYNC_GRAPHQL_URL !== undefined
        ? { resolveDidKey: createBlocksyncResolver({ url: config.BLOCKSYNC_GRAPHQL_URL }) }
        : {})
    })
    const apiKeys = createApiKeyService({
      accounts,
      verifier,
      db,
      state,
      clock,
      log: app.log,
      cacheTtlMs: config.API_KEY_CACHE_TTL_SECONDS * 1000,
      bootstrap: adminKey !== undefined ? { key: adminKey.key, account: config.DOMAIN_API_ADMIN_ACCOUNT } : undefined
    })
    await apiKeys.start()
    const allowedClassMethods = externalClassMethods(config)
    const domains = metrics.domains(createDomainService({ db, clock, idempotencyTtlMs, allowedClassMethods }))
    const batches = metrics.batches(createBatchService({ db, clock, idempotencyTtlMs, allowedClassMethods }))
    const governance = metrics.governance(createGovernanceService({
      db,
      clock,
      settings: {
        quorum: config.VERIFICATION_QUORUM,
        threshold: config.VERIFICATION_THRESHOLD,
        periodMs: config.VERIFICATION_PERIOD_SECONDS * 1000
      }
    }))

    const identifiers = createIdentifierService({ db, clock })
    await app.register(domainRoutes, { apiKeys, batches, domains, identifiers })
    await app.register(identifierRoutes, { identifiers })
    await app.register(proposalRoutes, { apiKeys, governance, audit })
    await app.register(apiKeyRoutes, { apiKeys, audit })
    const allowPrivateTargets = config.WEBHOOK_ALLOW_PRIVATE_TARGETS ?? config.NODE_ENV !== 'production'
    await app.register(eventRoutes, { apiKeys, feed: createEventFeed({ db }) })
    await app.register(webhookRoutes, { apiKeys, webhooks: createWebhookService({ db, clock, allowPrivateTargets }) })
    await app.register(graphqlRoutes, {
      apiKeys,
      domains,
      governance,
      db,
      clock,
      graphiql: config.GRAPHIQL_ENABLED ?? config.NODE_ENV === 'development',
      maxDepth: config.GRAPHQL_MAX_DEPTH,
      maxCost: config.GRAPHQL_MAX_COST
    })
    await app.register(accountRoutes, { apiKeys, accounts, audit })
    await app.register(revocationRoutes, { revocations: createUcanRevocationService({ db, clock, verifier }), audit })
    await app.register(auditRoutes, {
      trail: audit,
      url: '/v1/audit',
      onRequest: authorize(apiKeys, ['admin']),
      tags: ['audit'],
      security: KEY_SECURITY,
      errors: errorResponses(400, 401, 403)
    })

    const sweeper = startSweeper({
      db,
      clock,
      log: app.log,
      intervalMs: config.VERIFICATION_SWEEP_INTERVAL_SECONDS * 1000,
      idempotencyTtlMs
    })
    const deliveries = startDeliveryWorker({
      db,
      log: app.log,
      onAttempt: metrics.delivered,
      tracing: tracingOf(app),
      settings: {
        pollIntervalMs: config.WEBHOOK_POLL_INTERVAL_MS,
        timeoutMs: config.WEBHOOK_TIMEOUT_MS,
        maxAttempts: config.WEBHOOK_MAX_ATTEMPTS,
        retryBaseMs: config.WEBHOOK_RETRY_BASE_MS,
        retryMaxMs: config.WEBHOOK_RETRY_MAX_MS,
        concurrency: config.WEBHOOK_CONCURRENCY,
        allowPrivateTargets
      }
    })
    app.addHook('onClose', async () => {
      await deliveries.stop()
      await sweeper.stop()
      await apiKeys.close()
      await accounts.close()
      await state.close()
      await database.close()
    })
    return app
  } catch (error) {
    await state.close()
    await database.close()
    throw error
  }
}
