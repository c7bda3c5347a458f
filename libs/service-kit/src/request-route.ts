import type { FastifyRequest } from 'fastify'
import { labelRoute } from './metrics/http-metrics.ts'
import { nameSpanRoute } from './tracing/server-spans.ts'

/**
 * For a wildcard route that resolves its own table (the chain gateway): the template the request matched, as its
 * metrics label and its span's name. Call it from the handler, where the request's span is the active one.
 */
export function nameRequestRoute (request: FastifyRequest, route: string): void {
  labelRoute(request, route)
  nameSpanRoute(request.method, route)
}
