import type { FastifyInstance, FastifyRequest } from 'fastify'
import { bindRequestFacts, currentOrigin } from './request-context.ts'

/** What a caller says of an event; where it came from (address, request, trace) is added here. */
export interface AuditEvent {
  action: string
  outcome?: 'success' | 'failure'
  actor?: string | null | undefined
  subject?: string | null | undefined
  details?: Record<string, unknown>
}

export interface AuditRecordShape {
  action: string
  outcome: 'success' | 'failure'
  actor: string | null
  subject: string | null
  ip: string | null
  requestId: string | null
  traceId: string | null
  details: Record<string, unknown>
}

/** Where records go: `createAuditStore` of `@impact/persistence` over the app's own table. */
export interface AuditSink {
  write: (record: AuditRecordShape) => Promise<void>
  page: (query: { limit: number, before?: string | undefined, action?: string | undefined }) => Promise<{
    items: Array<AuditRecordShape & { id: string, at: Date }>
    nextCursor: string | null
  }>
  prune: () => Promise<number>
}

export interface AuditTrail {
  /** Writes the event; a failed write is logged, never thrown (the action it records already happened). */
  record: (event: AuditEvent) => Promise<void>
  sink: AuditSink
}

export interface AuditOptions {
  sink: AuditSink
  /** Routes tagged with one of these are operator routes: every use is recorded (`operator.request`). */
  operatorTags?: string[]
  /** So are routes whose OpenAPI security names one of these schemes (an operator token). */
  operatorSchemes?: string[]
  /** Who made an operator request (default `operator`, for apps with one shared operator token). */
  operatorOf?: (request: FastifyRequest) => string | null | undefined
  /** Record every 401 and 403 (`auth.refused`): failed logins and credentials refused. */
  refusals?: boolean
  /** How often records past the retention are deleted (default hourly); 0 never. */
  pruneEveryMs?: number
}

const HOUR_MS = 60 * 60 * 1000

const routeOf = (request: FastifyRequest) =>
  `${request.method} ${request.routeOptions.url ?? request.url.split('?')[0]}`

function isOperatorRoute (request: FastifyRequest, tags: ReadonlySet<string>, schemes: ReadonlySet<string>): boolean {
  type Documented = { tags?: string[], security?: Array<Record<string, unknown>> } | undefined
  const schema = request.routeOptions.schema as Documented
  return (schema?.tags ?? []).some((tag) => tags.has(tag)) ||
    (schema?.security ?? []).some((requirement) => Object.keys(requirement).some((name) => schemes.has(name)))
}

/**
 * The app's audit trail: request facts bound for `record`, operator requests and refusals recorded as they
 * end, and records past the retention pruned in the background. Registered on the root instance.
 */
export function registerAudit (app: FastifyInstance, options: AuditOptions): AuditTrail {
  const { sink } = options
  bindRequestFacts(app)
  const trail: AuditTrail = {
    sink,
    async record (event) {
      const record: AuditRecordShape = {
        action: event.action,
        outcome: event.outcome ?? 'success',
        actor: event.actor ?? null,
        subject: event.subject ?? null,
        details: event.details ?? {},
        ...currentOrigin()
      }
      await sink.write(record).catch((err: unknown) => {
        app.log.error({ err, action: record.action, requestId: record.requestId }, 'audit record not written')
      })
    }
  }

  const operatorTags = new Set(options.operatorTags ?? [])
  const operatorSchemes = new Set(options.operatorSchemes ?? [])
  const operators = operatorTags.size > 0 || operatorSchemes.size > 0
  if (operators || options.refusals === true) {
    app.addHook('onResponse', async (request, reply) => {
      const status = reply.statusCode
      const details = { status }
      if (options.refusals === true && (status === 401 || status === 403)) {
        await trail.record({ action: 'auth.refused', outcome: 'failure', subject: routeOf(request), details })
      } else if (operators && isOperatorRoute(request, operatorTags, operatorSchemes)) {
        const outcome = status < 400 ? 'success' : 'failure'
        const subject = routeOf(request)
        const actor = options.operatorOf?.(request) ?? 'operator'
        await trail.record({ action: 'operator.request', outcome, actor, subject, details })
      }
    })
  }

  const every = options.pruneEveryMs ?? HOUR_MS
  if (every > 0) {
    const prune = () => {
      sink.prune().then((count) => {
        if (count > 0) app.log.info({ count }, 'audit records past their retention deleted')
      }, (err: unknown) => { app.log.warn({ err }, 'audit records not pruned; retrying later') })
    }
    const timer = setInterval(prune, every)
    timer.unref()
    app.addHook('onReady', async () => { prune() })
    app.addHook('onClose', async () => { clearInterval(timer) })
  }
  return trail
}
