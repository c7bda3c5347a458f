import { Type, type TProperties } from '@sinclair/typebox'
import type { FastifyInstance, FastifyRequest } from 'fastify'

/** Throws (or times out) when down; an error's own `healthState` replaces `disconnected`. */
export type HealthCheck = () => Promise<void>

export interface HealthOptions {
  environment: string
  checks?: Record<string, HealthCheck>
  /** Down turns the status `degraded` but keeps 200, so the replica stays in rotation. */
  advisory?: Record<string, HealthCheck>
  landing?: {
    message: string
    extra?: () => Record<string, unknown>
    /** For the response schema and the OpenAPI document. */
    properties?: TProperties
  }
  timeoutMs?: number
  /** Informational entries; they do not change the status. Given the request, so they can depend on the caller. */
  report?: (request: FastifyRequest) => Record<string, string>
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

/** Liveness consults no dependency, so an outage does not restart pods. */
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
  }, async (request, reply) => {
    const [critical, optional] = await Promise.all([runAll(checks), runAll(advisory)])
    const up = (results: typeof critical) => results.every(([, state]) => state === CHECK_STATES.up)
    const ready = up(critical)
    const states = Object.fromEntries([...critical, ...optional])
    const status = ready && up(optional) ? 'ok' : 'degraded'
    return await reply.code(ready ? 200 : 503).send({ status, ...base(), ...options.report?.(request), ...states })
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
