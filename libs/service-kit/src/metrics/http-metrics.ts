import { Histogram, type Registry } from 'prom-client'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'

/** Requests no route matched share one label value: raw paths would make a series per scanner probe. */
export const UNMATCHED_ROUTE = 'unmatched'

const ROUTE_LABEL = Symbol('metrics route label')

/** For routes that dispatch on their own (one wildcard in front of a table): the template the request matched. */
export function labelRoute (request: FastifyRequest, template: string): void {
  (request as FastifyRequest & { [ROUTE_LABEL]?: string })[ROUTE_LABEL] = template
}

const STATUS_CLASSES = ['1xx', '2xx', '3xx', '4xx', '5xx'] as const
const statusClass = (code: number): string => STATUS_CLASSES[Math.floor(code / 100) - 1] ?? 'other'

/**
 * Rate, errors and duration per route: one histogram labelled by method, route template and status
 * class, observed when the response is finished.
 */
export function observeHttpRequests (app: FastifyInstance, registry: Registry): void {
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from request received to response sent, by method, route template and status class',
    labelNames: ['method', 'route', 'status_class'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry]
  })
  app.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    duration.observe({
      method: request.method,
      route: (request as FastifyRequest & { [ROUTE_LABEL]?: string })[ROUTE_LABEL] ??
        request.routeOptions.url ?? UNMATCHED_ROUTE,
      status_class: statusClass(reply.statusCode)
    }, reply.elapsedTime / 1000)
    done()
  })
}
