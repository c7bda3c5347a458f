import formbody from '@fastify/formbody'
import { Type } from '@sinclair/typebox'
import { createAuditStore, MEMORY_DATA_DIR } from '@impact/persistence'
import {
  auditRoutes, createApp, metricsOf, queryTimer, registerAudit, staticBearerGuard, timedSharedState, type App
} from '@impact/service-kit'
import { createSharedState, DEFAULT_COMMAND_TIMEOUT_MS } from '@impact/shared-state'
import { loadServiceIdentity } from '@impact/ucan'
import type { FastifyInstance } from 'fastify'
import type { DestinationStream } from 'pino'
import { simulatorEnabled, type Config } from './config.ts'
import { openAppDatabase } from './db/open.ts'
import rateLimit, { phoneRateLimit } from './plugins/rate-limit.ts'
import { accountRoutes } from './routes/accounts/index.ts'
import { pinResetRoutes } from './routes/accounts/pin-reset.ts'
import { reportRoutes } from './routes/reports/index.ts'
import { debugRoutes, operatorRoutesEnabled } from './routes/debug/index.ts'
import { eventRoutes } from './routes/events/index.ts'
import { hubtelRoutes } from './routes/hubtel/index.ts'
import { simulatorRoutes } from './routes/simulator/index.ts'
import { ussdRoutes } from './routes/ussd/index.ts'
import { createAccountKeys } from './services/account-keys.ts'
import { createAssistant } from './services/assistant.ts'
import { loadKeyring } from './services/pin-keyring.ts'
import { createPinQueue } from './services/pin-queue.ts'
import { createPinVault } from './services/pin-vault.ts'
import { createPlatform } from './services/platform.ts'
import { createPreferences } from './services/preferences.ts'
import { createProgrammeCatalog, defaultProgramme } from './services/programmes.ts'
import { createSessionRecorder } from './services/session-records.ts'
import { createSessionStore } from './services/session-store.ts'
import { createUssdMetrics } from './services/metrics.ts'
import { createRecentSms } from './services/sms/recent-sms.ts'
import { createSmsService } from './services/sms/sms-service.ts'
import { createUssdEngine } from './services/ussd-engine.ts'

export const APP_NAME = 'ussd-gateway'

/**
 * Fields that may carry PINs: the cumulative `text` (repeated as `input` by the end-of-session
 * notification), Hubtel's `Message`, and other aggregators' names for the same input.
 */
export const USSD_REDACT_PATHS = [
  'text', '*.text', 'input', '*.input', 'Message', '*.Message', 'lastAppResponse', '*.lastAppResponse',
  'body', '*.body', 'ussd_string', 'USERDATA', 'userData'
]

export interface BuildOptions {
  /** Write logs here instead of stdout (tests check what is logged). */
  logStream?: DestinationStream
  /** The clock that decides when sessions and cached preferences expire (tests move it). */
  now?: () => number
  /** How often expired sessions are recorded (tests shorten it; 30 s otherwise). */
  recordSweepMs?: number
}

/** Builds ussd-gateway unlistened; tests and server.ts share it. */
export async function buildApp (config: Config, options: BuildOptions = {}): Promise<App> {
  // Queries are timed once the app's metrics registry exists (it comes with the app).
  let timeQuery: ((event: Parameters<ReturnType<typeof queryTimer>>[0]) => void) | undefined
  const database = await openAppDatabase(config, { log: (event) => { timeQuery?.(event) } })
  // The rate limits wait on Redis before the hop deadline starts: a Redis command outliving a quarter
  // of the deadline fails, so a hung Redis still ends the hop within the deadline.
  const commandTimeoutMs = Math.min(DEFAULT_COMMAND_TIMEOUT_MS, Math.ceil(config.USSD_HOP_DEADLINE_MS / 4))
  const state = createSharedState({ url: config.REDIS_URL, prefix: config.REDIS_KEY_PREFIX, commandTimeoutMs })
  const clock = options.now !== undefined ? { now: options.now } : {}
  let stopProgrammes = () => {}
  let stopSms = async () => {}
  let stopRecords = async () => {}
  let stopAssistant = () => {}
  const release = async () => {
    stopProgrammes()
    stopAssistant()
    // Queued SMS stay in the state for another replica or the next start; the drain stops before it closes.
    // Session records being written finish before the database closes.
    await Promise.allSettled([stopSms(), stopRecords()])
    await Promise.allSettled([database.close(), state.close()])
  }
  try {
    // The gateway's own DID (never logged: the key), announced on GET / for callers to address it.
    const identity = await loadServiceIdentity({
      privateKey: config.USSD_PRIVATE_KEY,
      dataDir: config.DATA_DIR === MEMORY_DATA_DIR ? undefined : config.DATA_DIR,
      fileName: 'ussd-private-key'
    })
    const keyring = loadKeyring(config)
    const keys = createAccountKeys(keyring)
    const vault = createPinVault(keyring, createPinQueue({
      concurrency: config.PIN_CHECK_CONCURRENCY,
      maxQueued: config.PIN_CHECK_QUEUE_MAX
    }))
    const app = await createApp({
      config,
      name: APP_NAME,
      docs: {
        title: 'USSD gateway',
        version: '0.1.0',
        description: 'USSD menus over POST /api/ussd for telecom aggregators: ' +
          'sessions, accounts and PINs, rate limits.',
        securitySchemes: {
          operatorToken: { type: 'http', scheme: 'bearer', description: 'OPERATOR_TOKEN' },
          supportToken: { type: 'http', scheme: 'bearer', description: 'SUPPORT_TOKEN' }
        }
      },
      health: {
        checks: {
          database: async () => { await database.ready() },
          ...(state.kind === 'redis' ? { redis: async () => { await state.ping() } } : {})
        },
        landing: {
          message: 'ussd-gateway is running',
          extra: () => ({ did: identity.did }),
          properties: {
            did: Type.String({ description: 'This gateway\'s DID: the issuer of invocations it signs for accounts' })
          }
        }
      },
      // Aggregators call server to server; no browser origin needs CORS here (the simulator is same-origin).
      cors: false,
      // A request that reaches a draining replica is still served (the aggregator gets its screen, or
      // the unavailable END once the database is gone), never Fastify's JSON 503.
      return503OnClosing: false,
      logger: { redact: USSD_REDACT_PATHS, ...(options.logStream !== undefined ? { stream: options.logStream } : {}) }
    })
    app.addHook('onClose', release)
    const { registry } = metricsOf(app)
    const metrics = createUssdMetrics(registry)
    timeQuery = queryTimer(registry)
    // The rate limits keep the raw state: they reach its Redis client directly.
    const shared = timedSharedState(state, registry)
    const sessions = createSessionStore(shared, { ttlMs: config.USSD_SESSION_TTL_SECONDS * 1000, ...clock })
    const preferences = createPreferences(database.db, shared, clock)
    const retentionDays = config.AUDIT_RETENTION_DAYS
    const audit = registerAudit(app, {
      sink: createAuditStore({ db: database.db, table: 'ussd_audit_events', retentionDays }),
      operatorTags: ['operator']
    })
    // A hop's calls to the platform fit its deadline: a registry call gets a third of it (a hop makes two at
    // most), a question half of it after a quarter for the oracle's session; a slower answer gets the holding screen.
    const deadline = config.USSD_HOP_DEADLINE_MS
    const platform = createPlatform({
      domainApiUrl: config.DOMAIN_API_URL,
      timeoutMs: Math.floor(deadline / 3),
      report: (fields, message) => { app.log.warn(fields, message) }
    })
    const assistant = createAssistant({
      url: config.ORACLE_URL,
      state: shared,
      waitMs: Math.floor(deadline / 2),
      timeoutMs: Math.floor(deadline / 4),
      answerTtlMs: config.USSD_SESSION_TTL_SECONDS * 1000,
      report: (fields, message) => { app.log.warn(fields, message) }
    })
    stopAssistant = assistant.close
    const programmes = createProgrammeCatalog({
      file: config.USSD_PROGRAMMES_FILE,
      fallback: defaultProgramme(config.USSD_APP_NAME),
      pollMs: config.USSD_PROGRAMMES_POLL_MS,
      log: app.log,
      offers: (menu) => (menu === 'askAssistant' ? assistant.configured : platform.configured)
    })
    stopProgrammes = programmes.close
    await programmes.start()
    // The simulator's list shows the texts (temporary PINs too): development and tests only, never production.
    const recentSms = simulatorEnabled(config) && config.NODE_ENV !== 'production' ? createRecentSms() : undefined
    const sms = createSmsService({
      config,
      state: shared,
      keyring,
      language: async (phone) => await preferences.language(phone),
      log: app.log,
      onSettled: (record) => {
        metrics.smsSettled(record)
        recentSms?.add(record)
      }
    })
    stopSms = sms.close
    sms.start()
    const records = createSessionRecorder({
      db: database.db,
      sessions,
      ttlMs: config.USSD_SESSION_TTL_SECONDS * 1000,
      retentionDays: config.USSD_SESSION_RECORD_RETENTION_DAYS,
      log: app.log,
      onRecorded: metrics.sessionEnded,
      ...clock,
      ...(options.recordSweepMs !== undefined ? { sweepMs: options.recordSweepMs } : {})
    })
    stopRecords = records.close
    records.start()
    const configuredCodes = config.USSD_SERVICE_CODES?.split(',').map((code) => code.trim()) ?? []
    const engine = createUssdEngine({
      sessions,
      preferences,
      baseCodes: () => [...configuredCodes, ...programmes.codes()],
      deadlineMs: config.USSD_HOP_DEADLINE_MS,
      records,
      onSessionStarted: metrics.sessionStarted,
      ...clock,
      // The aggregator was told the hop failed; the log says whether it took effect after all.
      onLateHop: (sessionId, outcome) => {
        if (outcome instanceof Error) app.log.error({ sessionId, err: outcome }, 'ussd hop failed after its deadline')
        else app.log.warn({ sessionId, outcome }, 'ussd hop finished after its deadline')
      },
      machine: {
        db: database.db,
        vault,
        keys,
        accountsPerPhone: config.USSD_ACCOUNTS_PER_PHONE,
        lockout: { baseMs: config.PIN_LOCKOUT_BASE_SECONDS * 1000, maxMs: config.PIN_LOCKOUT_MAX_SECONDS * 1000 },
        programmes,
        saveLanguage: preferences.save,
        sms,
        platform,
        assistant,
        onPinMiss: metrics.pinMissed,
        audit
      }
    })
    // Form bodies (Africa's Talking posts them) and the rate limits apply to the USSD API only.
    await app.register(async function ussdApi (api: FastifyInstance) {
      await api.register(formbody, { bodyLimit: 16 * 1024 })
      await api.register(rateLimit, { config, state })
      const limitPhone = phoneRateLimit(api, config)
      await api.register(ussdRoutes, { engine, limitPhone })
      await api.register(hubtelRoutes, { engine, limitIp: api.rateLimit(), limitPhone })
      await api.register(eventRoutes, { engine })
      await api.register(debugRoutes, { config, sessions })
      await api.register(accountRoutes, { config, db: database.db, preferences, audit })
      await api.register(reportRoutes, { config, db: database.db })
      if (operatorRoutesEnabled(config)) {
        const operator = config.OPERATOR_TOKEN
        await api.register(auditRoutes, {
          trail: audit,
          url: '/audit',
          onRequest: operator === undefined ? [] : [staticBearerGuard([operator])],
          tags: ['operator'],
          security: operator === undefined ? [] : [{ operatorToken: [] }],
          errors: Object.fromEntries([400, 401, 429, 503].map((status) => [status, { $ref: 'ErrorBody#' }]))
        })
      }
      await api.register(pinResetRoutes, { config, db: database.db, vault, sms, audit })
    }, { prefix: '/api/ussd' })
    if (simulatorEnabled(config)) await app.register(simulatorRoutes, { config, recentSms, programmes })
    return app
  } catch (error) {
    await release()
    throw error
  }
}
