import { AsyncLocalStorage } from 'node:async_hooks'
import { context, trace } from '@opentelemetry/api'
import type { FastifyInstance, FastifyRequest } from 'fastify'

interface RequestFacts { requestId: string, ip: string }

const requests = new AsyncLocalStorage<RequestFacts>()

const factsOf = (request: FastifyRequest): RequestFacts => ({ requestId: request.id, ip: request.ip })

/**
 * Makes the request's id and client address known to whatever records an audit event while it is served,
 * however deep (a USSD menu step). Entered on arrival and again once the body is read, as tracing does.
 */
export function bindRequestFacts (app: FastifyInstance): void {
  app.addHook('onRequest', (request, _reply, done) => { requests.run(factsOf(request), done) })
  app.addHook('preValidation', (request, _reply, done) => { requests.run(factsOf(request), done) })
}

/** Where the event comes from: the request being served (none for background work) and its trace, if traced. */
export function currentOrigin (): { ip: string | null, requestId: string | null, traceId: string | null } {
  const facts = requests.getStore()
  const span = trace.getSpan(context.active())
  return { ip: facts?.ip ?? null, requestId: facts?.requestId ?? null, traceId: span?.spanContext().traceId ?? null }
}
