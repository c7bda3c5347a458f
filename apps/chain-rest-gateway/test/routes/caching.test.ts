import { describe, expect, it } from 'vitest'
import { nodeAndGateway } from '../helper.ts'

const PATH = '/ixo.claims.v1beta1.Query/ClaimList'

describe('response cache', () => {
  it('reuses latest answers for the TTL, whatever the spelling of the query', async () => {
    const { node, app } = await nodeAndGateway({ startHeight: 300 }, { CHAIN_CACHE_LATEST_TTL_MS: '60000' })
    const a = await app.inject({
      method: 'GET',
      url: '/ixo/claims/claims?pagination.limit=3&pagination.count_total=true'
    })
    const b = await app.inject({
      method: 'GET',
      url: '/ixo/claims/claims?pagination.countTotal=true&pagination.limit=3&unknown=1'
    })
    expect(b.body).toBe(a.body)
    expect(b.headers['x-cosmos-block-height']).toBe('300')
    expect(node.calls.get(PATH)).toBe(1)
    await app.inject({ method: 'GET', url: '/ixo/claims/claims?pagination.limit=4' })
    expect(node.calls.get(PATH)).toBe(2)
  })

  it('keeps height-pinned answers and files latest answers under their height', async () => {
    const { node, app } = await nodeAndGateway({ startHeight: 300 }, { CHAIN_CACHE_LATEST_TTL_MS: '0' })
    await app.inject({ method: 'GET', url: '/ixo/claims/claims' })
    await app.inject({ method: 'GET', url: '/ixo/claims/claims' })
    expect(node.calls.get(PATH)).toBe(2)
    const pinned = await app.inject({
      method: 'GET',
      url: '/ixo/claims/claims',
      headers: { 'x-cosmos-block-height': '300' }
    })
    expect(pinned.headers['x-cosmos-block-height']).toBe('300')
    expect(node.calls.get(PATH)).toBe(2)
    await app.inject({ method: 'GET', url: '/ixo/claims/claims', headers: { 'x-cosmos-block-height': '35' } })
    const again = await app.inject({
      method: 'GET',
      url: '/ixo/claims/claims',
      headers: { 'x-cosmos-block-height': '35' }
    })
    expect(again.json().claims).toHaveLength(6)
    expect(node.calls.get(PATH)).toBe(3)
  })

  it('never keeps errors', async () => {
    const { node, app } = await nodeAndGateway({}, { CHAIN_CACHE_LATEST_TTL_MS: '60000' })
    await app.inject({ method: 'GET', url: '/ixo/claims/claim/nope' })
    await app.inject({ method: 'GET', url: '/ixo/claims/claim/nope' })
    expect(node.calls.get('/ixo.claims.v1beta1.Query/Claim')).toBe(2)
  })

  it('coalesces identical queries in flight into one node call', async () => {
    const { node, app } = await nodeAndGateway({ delayMs: 150 }, { CHAIN_CACHE_LATEST_TTL_MS: '0' })
    const answers = await Promise.all(
      Array.from({ length: 10 }, async () => await app.inject({ method: 'GET', url: '/ixo/claims/claims' }))
    )
    expect(answers.every((res) => res.statusCode === 200 && res.body === answers[0]!.body)).toBe(true)
    expect(node.calls.get(PATH)).toBe(1)
  })

  it('calls the node for every request when CHAIN_CACHE_ENABLED=false', async () => {
    const { node, app } = await nodeAndGateway({ delayMs: 50 }, { CHAIN_CACHE_ENABLED: 'false' })
    await Promise.all(
      Array.from({ length: 5 }, async () => await app.inject({ method: 'GET', url: '/ixo/claims/claims' }))
    )
    await app.inject({ method: 'GET', url: '/ixo/claims/claims' })
    expect(node.calls.get(PATH)).toBe(6)
  })
})
