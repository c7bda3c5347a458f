import { Type, type TProperties } from '@sinclair/typebox'
import type { FastifyInstance } from 'fastify'

/**
 * A dependency check: resolves when the dependency answers, throws (or times out) otherwise; the entry then
 * reads `disconnected`, or the error's own `healthState` (`migrations pending`).
 */
export type HealthCheck = () => Promise<void>

export interface HealthOptions {
  environment: string
  checks?: Record<string, HealthCheck>
  /**
   * Dependencies the app still serves without (a model provider): one that is down turns the status
   * `degraded` but the answer stays 200, so the replica stays in rotation (readiness is not failed).
   */
  advisory?: Record<string, HealthCheck>
  /** Landing route `GET /`: message and extra fields (e.g. the oracle's DID). */
  landing?: {
    message: string
    extra?: () => Record<string, unknown>
    /** Schemas of the extra fields, for the response schema and the OpenAPI document. */
    properties?: TProperties
  }
  timeoutMs?: number
  /**
   * Informational entries added to `GET /health` after the checks ran (e.g. per-replica upstream
   * states); they do not change the status.
   */
  report?: () => Record<string, string>
}

const CHECK_STATES = { up: 'connected', down: 'disconnected' } as const

const HealthSchema = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('degraded')]),
  environment: Type.String(),
  timestamp: Type.String({ format: 'date-time' }),
  uptime: Type.Number({ description: 'Seconds since the process started' })
}, {
  additionalProperties: Type.String({
    description: 'One entry per dependency: connected | disconnected (the database also: migrations pending)'
  })
})

const stateOf = (error: unknown): string => {
  const state = typeof error === 'object' && error !== null
    ? (error as { healthState?: unknown }).healthState
    : undefined
  return typeof state === 'string' ? state : CHECK_STATES.down
}

async function runCheck (check: HealthCheck, timeoutMs: number): Promise<string> {
  let timer: NodeJS.Timeout | undefined
  try {
    await Promise.race([
      check(),
      new Promise((_resolve, reject) => { timer = setTimeout(() => reject(new Error('timeout')), timeoutMs) })
    ])
    return CHECK_STATES.up
  } catch (error) {
    return stateOf(error)
  } finally {
    clearTimeout(timer)
  }
}

/**
 * `GET /health` (readiness: every dependency pinged, 503 when one is down), `GET /health/live`
 * (liveness: the process answers, dependencies not consulted, so an outage does not restart pods)
 * and the landing route `GET /`.
 */
export function registerHealthRoutes (app: FastifyInstance, options: HealthOptions) {
  const checks = Object.entries(options.checks ?? {})
  const advisory = Object.entries(options.advisory ?? {})
  const runAll = async (list: Array<[string, HealthCheck]>) =>
    await Promise.all(list.map(async ([name, check]) => [name, await runCheck(check, timeoutMs)] as const))
  const timeoutMs = options.timeoutMs ?? 2000
  const base = () => ({
    environment: options.environment,
    timestamp: new Date().toISOString(),
    uptime: process.uptime()
  })

  app.get('/health', {
    schema: {
      tags: ['health'],
      summary: 'Readiness with dependency checks',
      response: { 200: HealthSchema, 503: HealthSchema }
    }
  }, async (_request, reply) => {
    const [critical, optional] = await Promise.all([runAll(checks), runAll(advisory)])
    const up = (results: typeof critical) => results.every(([, state]) => state === CHECK_STATES.up)
    const ready = up(critical)
    const states = Object.fromEntries([...critical, ...optional])
    const status = ready && up(optional) ? 'ok' : 'degraded'
    return await reply.code(ready ? 200 : 503).send({ status, ...base(), ...options.report?.(), ...states })
  })

  app.get('/health/live', {
    schema: { tags: ['health'], summary: 'Liveness', response: { 200: HealthSchema } }
  }, async () => ({ status: 'ok' as const, ...base() }))

  if (options.landing !== undefined) {
    const { message, extra, properties } = options.landing
    app.get('/', {
      schema: {
        tags: ['health'],
        summary: 'Landing record for platform probes',
        response: {
          200: Type.Object({
            status: Type.Literal('ok'),
            message: Type.String(),
            environment: Type.String(),
            timestamp: Type.String({ format: 'date-time' }),
            ...properties
          }, { additionalProperties: true })
        }
      }
    }, async () => ({
      status: 'ok' as const,
      message,
      environment: options.environment,
      timestamp: new Date().toISOString(),
      ...extra?.()
    }))
  }
}
