import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startChain, type LoopbackChain } from '@impact/chain-rest-gateway/testing'
import { createPlatformClient, PlatformClientError } from '../src/index.ts'
import { ENTITY_1 } from './services.ts'

const KEY = 'chain-key-0123456789abcdef'
let open: LoopbackChain
let gated: LoopbackChain

beforeAll(async () => {
  [open, gated] = await Promise.all([startChain(), startChain({ CHAIN_API_KEYS: KEY })])
})
afterAll(async () => { await Promise.all([open?.close(), gated?.close()]) })

async function failure (call: Promise<unknown>): Promise<PlatformClientError> {
  const error = await call.then(() => undefined, (e: unknown) => e)
  if (!(error instanceof PlatformClientError)) throw new Error(`expected a PlatformClientError, got ${String(error)}`)
  return error
}

describe('queryChain', () => {
  it('reads an entity, a claim collection and the token params by route', async () => {
    const chain = createPlatformClient({ chainRestUrl: open.url })
    const { entity } = await chain.queryChain<{ entity: { id: string, type: string } }>(`/ixo/entity/${ENTITY_1}`)
    expect(entity).toMatchObject({ id: ENTITY_1, type: 'protocol' })
    const { collection } = await chain.queryChain<{ collection: { id: string, state: string } }>(
      '/ixo/claims/collection/1'
    )
    expect(collection).toMatchObject({ id: '1', state: 'OPEN' })
    expect(await chain.queryChain('/ixo/token/params')).toEqual({ params: { ixo1155_contract_code: '1' } })
  })

  it('passes query parameters given apart or in the route', async () => {
    const chain = createPlatformClient({ chainRestUrl: open.url })
    type Page = { claims: unknown[], pagination: { next_key: string | null } }
    const apart = await chain.queryChain<Page>('/ixo/claims/claims', { query: { 'pagination.limit': 2 } })
    const inline = await chain.queryChain<Page>('/ixo/claims/claims?pagination.limit=2')
    expect(apart.claims).toHaveLength(2)
    expect(inline).toEqual(apart)
  })

  it('maps the gateway\'s google.rpc.Status errors to CHAIN_ codes', async () => {
    const chain = createPlatformClient({ chainRestUrl: open.url })
    expect(await failure(chain.queryChain('/ixo/no-such-route'))).toMatchObject({
      code: 'CHAIN_NOT_FOUND', statusCode: 404, service: 'chain-rest-gateway'
    })
    // The node's own keeper message passes through, as the chain reports it (Unknown, 500).
    expect(await failure(chain.queryChain('/ixo/claims/claim/nope'))).toMatchObject({
      code: 'CHAIN_UNKNOWN', statusCode: 500, message: 'claim not found: for id nope'
    })
  })

  it('sends the configured API key to a gated gateway', async () => {
    const withKey = createPlatformClient({ chainRestUrl: gated.url, chainApiKey: KEY })
    expect(await withKey.queryChain('/ixo/token/params')).toEqual({ params: { ixo1155_contract_code: '1' } })
    const without = createPlatformClient({ chainRestUrl: gated.url })
    expect(await failure(without.queryChain('/ixo/token/params'))).toMatchObject({
      code: 'CHAIN_UNAUTHENTICATED', statusCode: 401
    })
  })

  it('refuses routes that would leave the gateway\'s path, before any request', async () => {
    const chain = createPlatformClient({ chainRestUrl: `${open.url}/chain` })
    for (const route of ['/../health', '/ixo/%2e%2e/x', '//example.org/x', 'ixo/entity', '/ixo/a%2fb', '/a b']) {
      expect(await failure(chain.queryChain(route))).toMatchObject({ code: 'PLATFORM_INVALID_ROUTE', statusCode: 400 })
    }
  })
})
