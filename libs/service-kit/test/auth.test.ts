import { describe, expect, it, onTestFinished } from 'vitest'
import { readBearerToken, safeEqual, staticBearerGuard } from '../src/index.ts'
import { buildTestApp } from './helper.ts'

describe('safeEqual', () => {
  it('compares by content, whatever the lengths', () => {
    expect(safeEqual('s3cret', 's3cret')).toBe(true)
    expect(safeEqual('s3cret', 's3cre')).toBe(false)
    expect(safeEqual('', 'x')).toBe(false)
  })
})

describe('readBearerToken', () => {
  it('reads only well-formed bearer headers', () => {
    expect(readBearerToken('Bearer abc.def')).toBe('abc.def')
    expect(readBearerToken('bearer abc')).toBe('abc')
    expect(readBearerToken('Basic abc')).toBeUndefined()
    expect(readBearerToken('Bearer a b')).toBeUndefined()
    expect(readBearerToken(undefined)).toBeUndefined()
  })
})

describe('staticBearerGuard', () => {
  it('answers 401 without or with a wrong token, and admits a configured one', async () => {
    const app = await buildTestApp()
    onTestFinished(async () => { await app.close() })
    app.get('/ops', { preHandler: staticBearerGuard(['token-one', 'token-two']) }, async () => ({ ok: true }))

    const missing = await app.inject({ method: 'GET', url: '/ops' })
    expect(missing.statusCode).toBe(401)
    expect(missing.json()).toMatchObject({ statusCode: 401, code: 'AUTH_MISSING' })
    expect(missing.headers['www-authenticate']).toBe('Bearer')

    const wrong = await app.inject({ method: 'GET', url: '/ops', headers: { authorization: 'Bearer token-three' } })
    expect(wrong.statusCode).toBe(401)
    expect(wrong.json().code).toBe('AUTH_INVALID')

    const ok = await app.inject({ method: 'GET', url: '/ops', headers: { authorization: 'Bearer token-two' } })
    expect(ok.json()).toEqual({ ok: true })
  })
})
