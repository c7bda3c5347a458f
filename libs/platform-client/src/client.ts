import type {
  BatchCreateResult, CreateDomainBody, Domain, DomainEventPage, DomainPage, ListDomainsQuery, Proposal
} from '@impact/schemas'
import { mintRevocation } from '@impact/ucan'
import type { Delegation } from '@ucanto/interface'
import { createInvoker, type Actor, type Invoker } from './actor.ts'
import { PlatformClientError, type PlatformService } from './errors.ts'
import { endpoint, errorFromBody, errorFromStatus, send, type HttpAnswer } from './http.ts'
import { chainRoute } from './chain-route.ts'
import { createDidCache, type DidCache } from './service-did.ts'

export type DomainSearch = Partial<ListDomainsQuery>

export interface DomainVerification {
  did: string
  status: Domain['status']
  verified: boolean
  usable: boolean
  proposal: Proposal | null
}

export interface GraphqlError {
  message: string
  path?: Array<string | number>
  extensions?: { code?: string, [key: string]: unknown }
}
export interface GraphqlResult<T> { data: T | null, errors?: GraphqlError[] }

export interface Revocation { ok: true, cid: string, expiresAt: string }

export interface PlatformClientOptions {
  domainApiUrl?: string | undefined
  /** Otherwise read from its `GET /` and cached. */
  domainApiDid?: string | undefined
  chainRestUrl?: string | undefined
  chainApiKey?: string | undefined
  /** `actingAs` gives a client for another actor. */
  actor?: Actor | undefined
  /** Default 10 s, DID lookups included. */
  timeoutMs?: number
  /** Default 60 s. */
  didCacheTtlMs?: number
  /** Default 60 s; never beyond the delegation's expiry. */
  invocationLifetimeSeconds?: number
}

export interface CallOptions {
  /** Its reason is rethrown. */
  signal?: AbortSignal | undefined
}

export interface ChainQueryOptions extends CallOptions {
  /** Also accepted in the route after `?`. */
  query?: Record<string, string | number | boolean | undefined> | undefined
  /** `x-cosmos-block-height`. */
  height?: number | string | undefined
}

interface Shared {
  options: PlatformClientOptions
  dids: DidCache
  timeoutMs: number
  lifetimeSeconds: number
}

export interface PlatformClient {
  registerDomain: (body: CreateDomainBody, options?: CallOptions & { idempotencyKey?: string }) => Promise<Domain>
  /**
   * Up to 1,000 registrations in one request: one result per item, in input order (created with its DID, or the
   * error a single registration would have got); only a request refused whole throws.
   */
  registerDomains: (
    items: CreateDomainBody[],
    options?: CallOptions & { idempotencyKey?: string }
  ) => Promise<BatchCreateResult>
  getDomain: (did: string, options?: CallOptions) => Promise<Domain>
  /** Newest first. */
  searchDomains: (query?: DomainSearch, options?: CallOptions) => Promise<DomainPage>
  /** Oldest first. */
  getDomainHistory: (
    did: string,
    query?: { limit?: number, cursor?: string },
    options?: CallOptions
  ) => Promise<DomainEventPage>
  getVerification: (did: string, options?: CallOptions) => Promise<DomainVerification>
  /** Field errors come back in `errors`; a query that does not parse or validate throws. */
  graphql: <T = Record<string, unknown>>(
    query: string,
    variables?: Record<string, unknown>,
    options?: CallOptions
  ) => Promise<GraphqlResult<T>>
  /** Default: the actor's own delegation. */
  revoke: (delegation?: Delegation | string, options?: CallOptions) => Promise<Revocation>
  /** The gateway's JSON as is. */
  queryChain: <T = unknown>(route: string, options?: ChainQueryOptions) => Promise<T>
  /** Throws `AUTHORISATION_REQUIRED` when the delegation does not cover `ability`; nothing is sent. */
  assertAuthorised: (ability: string) => Promise<void>
  /** DID cache and settings are shared. */
  actingAs: (actor: Actor) => PlatformClient
}

/** Each domain-api call carries a fresh single-use invocation made by the actor's signer. */
export function createPlatformClient (options: PlatformClientOptions = {}): PlatformClient {
  const timeoutMs = options.timeoutMs ?? 10_000
  const shared: Shared = {
    options,
    timeoutMs,
    lifetimeSeconds: options.invocationLifetimeSeconds ?? 60,
    dids: createDidCache({ ttlMs: options.didCacheTtlMs ?? 60_000, timeoutMs })
  }
  return clientFor(shared, options.actor)
}

const notConfigured = (message: string, service?: PlatformService) =>
  new PlatformClientError('PLATFORM_NOT_CONFIGURED', message, 500, { service })

function clientFor (shared: Shared, actor: Actor | undefined): PlatformClient {
  const { options, dids, timeoutMs } = shared
  const invoker: Invoker | undefined = actor !== undefined ? createInvoker(actor, shared.lifetimeSeconds) : undefined
  const service = 'domain-api'

  const domainApiUrl = () => {
    if (options.domainApiUrl === undefined) throw notConfigured('DOMAIN_API_URL is not configured', service)
    return options.domainApiUrl
  }
  const domainApiDid = async (signal?: AbortSignal) =>
    options.domainApiDid ?? await dids.get(service, domainApiUrl(), signal)

  const invokerOfActor = (): Invoker => {
    if (invoker === undefined) throw notConfigured('no actor: use actingAs(actor) for domain-api calls', service)
    return invoker
  }

  async function call <T> (
    ability: string,
    request: { method: 'GET' | 'POST', path: string, query?: URLSearchParams, body?: unknown },
    options: CallOptions & { headers?: Record<string, string>, expect?: number } = {}
  ): Promise<T> {
    const acting = invokerOfActor()
    const base = domainApiUrl()
    const granted = await acting.authorise(ability)
    const token = await acting.invoke(ability, await domainApiDid(options.signal), granted)
    const answer = await send({
      service,
      method: request.method,
      url: endpoint(base, request.path, request.query),
      headers: { ...options.headers, authorization: `Bearer ${token}`, 'x-auth-type': 'ucan' },
      body: request.body,
      timeoutMs,
      signal: options.signal
    })
    if (answer.status === (options.expect ?? 200)) return answer.body as T
    throw refusal(answer, ability, base)
  }

  function refusal (answer: HttpAnswer, ability: string, base: string) {
    const error = errorFromBody(service, answer, ability)
    // An invocation refused as such may have been addressed to a DID the service no longer has.
    if (error.code === 'DOMAIN_UCAN_INVALID_INVOCATION') dids.forget(base)
    return error
  }

  const idempotencyHeaders = (options: { idempotencyKey?: string }): Record<string, string> =>
    options.idempotencyKey !== undefined ? { 'idempotency-key': options.idempotencyKey } : {}
  const didPath = (did: string) => `/v1/domains/${encodeURIComponent(did)}`
  const searchOf = (query: Record<string, string | number | boolean | undefined> = {}) => {
    const search = new URLSearchParams()
    for (const [key, value] of Object.entries(query)) if (value !== undefined) search.set(key, String(value))
    return search
  }

  const client: PlatformClient = {
    async assertAuthorised (ability: string) {
      await invokerOfActor().authorise(ability)
    },

    async registerDomain (body: CreateDomainBody, options: CallOptions & { idempotencyKey?: string } = {}) {
      return await call<Domain>('domain/create', { method: 'POST', path: '/v1/domains', body }, {
        ...options, headers: idempotencyHeaders(options), expect: 201
      })
    },

    async registerDomains (items: CreateDomainBody[], options: CallOptions & { idempotencyKey?: string } = {}) {
      return await call<BatchCreateResult>('domain/create', {
        method: 'POST', path: '/v1/domains/batch', body: { items }
      }, { ...options, headers: idempotencyHeaders(options) })
    },

    async getDomain (did: string, options: CallOptions = {}) {
      return await call<Domain>('domain/read', { method: 'GET', path: didPath(did) }, options)
    },

    async searchDomains (query: DomainSearch = {}, options: CallOptions = {}) {
      return await call<DomainPage>('domain/read', { method: 'GET', path: '/v1/domains', query: searchOf(query) },
        options)
    },

    async getDomainHistory (did: string, query: { limit?: number, cursor?: string } = {}, options: CallOptions = {}) {
      return await call<DomainEventPage>('domain/read', {
        method: 'GET', path: `${didPath(did)}/history`, query: searchOf(query)
      }, options)
    },

    async getVerification (did: string, options: CallOptions = {}): Promise<DomainVerification> {
      const domain = await client.getDomain(did, options)
      const proposal = domain.verification !== null
        ? await call<Proposal>('domain/read', {
          method: 'GET', path: `/v1/verification-proposals/${encodeURIComponent(domain.verification.proposalId)}`
        }, options)
        : null
      return { did: domain.did, status: domain.status, verified: domain.verified, usable: domain.usable, proposal }
    },

    async graphql <T = Record<string, unknown>> (
      query: string,
      variables?: Record<string, unknown>,
      options: CallOptions = {}
    ): Promise<GraphqlResult<T>> {
      return await call<GraphqlResult<T>>('domain/read', {
        method: 'POST', path: '/graphql', body: { query, ...(variables !== undefined ? { variables } : {}) }
      }, options)
    },

    async revoke (delegation?: Delegation | string, options: CallOptions = {}): Promise<Revocation> {
      if (actor === undefined || invoker === undefined) throw notConfigured('no actor to sign the revocation', service)
      const revoked = delegation ?? await invoker.proof()
      if (revoked === undefined || revoked === null) throw notConfigured('no delegation to revoke', service)
      const base = domainApiUrl()
      const token = await mintRevocation({
        issuer: actor.signer, audience: await domainApiDid(options.signal), delegation: revoked
      })
      const answer = await send({
        service,
        method: 'POST',
        url: endpoint(base, '/v1/revocations'),
        headers: { authorization: `Bearer ${token}`, 'x-auth-type': 'ucan' },
        timeoutMs,
        signal: options.signal
      })
      if (answer.status === 200) return answer.body as Revocation
      throw refusal(answer, 'ucan/revoke', base)
    },

    async queryChain <T = unknown> (route: string, options: ChainQueryOptions = {}): Promise<T> {
      const chainService = 'chain-rest-gateway'
      if (shared.options.chainRestUrl === undefined) {
        throw notConfigured('CHAIN_REST_URL is not configured', chainService)
      }
      const { path, search } = chainRoute(route, options.query)
      const headers: Record<string, string> = {}
      if (shared.options.chainApiKey !== undefined) headers.authorization = `Bearer ${shared.options.chainApiKey}`
      if (options.height !== undefined) headers['x-cosmos-block-height'] = String(options.height)
      const answer = await send({
        service: chainService,
        method: 'GET',
        url: endpoint(shared.options.chainRestUrl, path, search),
        headers,
        timeoutMs,
        signal: options.signal
      })
      if (answer.status === 200) return answer.body as T
      throw errorFromStatus(answer)
    },

    actingAs (next: Actor): PlatformClient {
      return clientFor(shared, next)
    }
  }
  return client
}
