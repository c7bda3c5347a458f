import { describe, expect, it } from 'vitest'
import { nodeAndGateway } from '../helper.ts'

const KEY = 'dev-key-0123456789abcdef'

describe('REST gating by API key', () => {
  it('answers 401 without a key, 403 with a wrong one, and serves with Bearer or X-API-Key', async () => {
    const { app } = await nodeAndGateway({}, { CHAIN_API_KEYS: `other-key-00000000000,${KEY}` })
    const missing = await app.inject({ method: 'GET', url: '/ixo/token/params' })
    expect(missing.statusCode).toBe(401)
    expect(missing.json()).toMatchObject({ code: 16, details: [] })
    expect(missing.headers['www-authenticate']).toBe('Bearer')
    const wrong = await app.inject({
      method: 'GET',
      url: '/ixo/token/params',
      headers: { authorization: 'Bearer nope' }
    })
    expect(wrong.statusCode).toBe(403)
    expect(wrong.json()).toEqual({ code: 7, message: 'API key not accepted', details: [] })
    expect(
      (await app.inject({ method: 'GET', url: '/ixo/token/params', headers: { authorization: `Bearer ${KEY}` } }))
        .statusCode
    ).toBe(200)
    expect(
      (await app.inject({ method: 'GET', url: '/ixo/token/params', headers: { 'x-api-key': KEY } })).statusCode
    ).toBe(200)
    expect((await app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200)
  })
})
