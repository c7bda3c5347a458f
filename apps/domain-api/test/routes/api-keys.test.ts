import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { captureLogs } from '@impact/service-kit/testing'
import { ADMIN_KEY, PROTOCOL, randomAccount, startApp, type TestApp } from '../helper.ts'

let t: TestApp
const logs = captureLogs()

beforeAll(async () => { t = await startApp({ LOG_LEVEL: 'trace' }, { logStream: logs.stream }) })
afterAll(async () => { await t?.close() })

const issue = (payload: object, key = ADMIN_KEY) =>
  t.app.inject({ method: 'POST', url: '/v1/api-keys', headers: t.auth(key), payload })

describe('POST /v1/api-keys', () => {
  it('issues a key once, with its roles and account, and keeps only a digest', async () => {
    const account = randomAccount()
    const res = await issue({ name: 'field office', roles: ['registrar', 'compliance'], account })
    expect(res.statusCode).toBe(201)
    expect(res.headers['cache-control']).toBe('no-store')
    const created = res.json()
    expect(created).toMatchObject({ name: 'field office', roles: ['registrar', 'compliance'], account })
    expect(created.key).toMatch(/^dk_[A-Za-z0-9_-]{43}$/)
    expect(created.key.startsWith(created.prefix)).toBe(true)
    const read = await t.app.inject({ method: 'GET', url: `/v1/api-keys/${created.id}`, headers: t.auth(ADMIN_KEY) })
    expect(read.json()).toMatchObject({ id: created.id, createdBy: 'bootstrap', revokedAt: null })
    expect(read.body).not.toContain(created.key)
    const me = async () =>
      (await t.app.inject({ method: 'GET', url: '/v1/api-keys/current', headers: t.auth(created.key) })).json()
    // A key acts with the roles it names that its account holds: none until an admin grants them.
    expect(await me()).toEqual({ id: created.id, name: 'field office', roles: [], account, organisation: null })
    await t.grant(account, ['registrar', 'compliance', 'voter'])
    expect(await me()).toEqual(
      { id: created.id, name: 'field office', roles: ['registrar', 'compliance'], account, organisation: null })
  })

  it('refuses a key without an account: a key never acts for another', async () => {
    const res = await issue({ name: 'default account', roles: ['voter'] })
    expect(res.statusCode).toBe(400)
    expect(res.json().message).toContain('account')
  })

  it('validates the request', async () => {
    expect((await issue({ name: '', roles: ['voter'] })).statusCode).toBe(400)
    expect((await issue({ name: 'x', roles: [] })).statusCode).toBe(400)
    expect((await issue({ name: 'x', roles: ['root'] })).statusCode).toBe(400)
    expect((await issue({ name: 'x', roles: ['voter'], account: 'bob' })).statusCode).toBe(400)
    expect((await issue({ name: 'x', roles: ['voter'], account: 'did:ixo:ixo1a/path' })).statusCode).toBe(400)
  })

  it('is for admins only', async () => {
    const registrar = await t.issueKey(['registrar'])
    const res = await issue({ name: 'escalation', roles: ['admin'], account: randomAccount() }, registrar.key)
    expect(res.statusCode).toBe(403)
    expect(res.json().code).toBe('DOMAIN_FORBIDDEN')
    const admin = await t.issueKey(['admin'])
    const byAdmin = await issue({ name: 'by a issued admin', roles: ['voter'], account: randomAccount() }, admin.key)
    expect(byAdmin.statusCode).toBe(201)
  })
})

describe('authentication', () => {
  it('answers 401 to a missing, malformed or unknown key', async () => {
    for (const headers of [
      {},
      { authorization: 'Basic abc' },
      { authorization: 'Bearer dk_unknown' },
      { authorization: `Bearer ${'x'.repeat(600)}` }
    ]) {
      const res = await t.app.inject({ method: 'GET', url: '/v1/domains', headers })
      expect(res.statusCode).toBe(401)
      expect(res.json()).toMatchObject({ statusCode: 401, error: 'Unauthorized' })
      expect(res.headers['www-authenticate']).toMatch(/^Bearer/)
    }
  })

  it('stops accepting a revoked key at once (cached or not), and revoking is idempotent', async () => {
    const registrar = await t.issueKey(['registrar'])
    expect((await t.createDomain(registrar.key)).status).toBe('draft')
    const revoke = await t.app.inject({
      method: 'DELETE',
      url: `/v1/api-keys/${registrar.id}`,
      headers: t.auth(ADMIN_KEY)
    })
    expect(revoke.statusCode).toBe(204)
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/domains',
      headers: t.auth(registrar.key),
      payload: { type: 'Project', class: PROTOCOL }
    })
    expect(res.statusCode).toBe(401)
    expect(res.json().code).toBe('DOMAIN_API_KEY_REVOKED')
    const again = await t.app.inject({
      method: 'DELETE',
      url: `/v1/api-keys/${registrar.id}`,
      headers: t.auth(ADMIN_KEY)
    })
    expect(again.statusCode).toBe(204)
    const read = await t.app.inject({ method: 'GET', url: `/v1/api-keys/${registrar.id}`, headers: t.auth(ADMIN_KEY) })
    expect(read.json().revokedAt).not.toBeNull()
  })

  it('answers 404 when revoking an unknown key', async () => {
    const res = await t.app.inject({
      method: 'DELETE',
      url: '/v1/api-keys/00000000-0000-4000-8000-000000000000',
      headers: t.auth(ADMIN_KEY)
    })
    expect(res.statusCode).toBe(404)
    expect(res.json().code).toBe('DOMAIN_API_KEY_NOT_FOUND')
  })

  it('lists keys without secrets, page by page', async () => {
    for (let i = 0; i < 3; i++) {
      t.clock.advance(1)
      await t.issueKey(['voter'])
    }
    const ids: string[] = []
    let cursor: string | null = null
    do {
      const url: string = `/v1/api-keys?limit=2${cursor !== null ? `&cursor=${cursor}` : ''}`
      const res = await t.app.inject({ method: 'GET', url, headers: t.auth(ADMIN_KEY) })
      expect(res.statusCode).toBe(200)
      for (const item of res.json().items) {
        expect(item).not.toHaveProperty('key')
        expect(item).not.toHaveProperty('keyHash')
        ids.push(item.id)
      }
      cursor = res.json().nextCursor
    } while (cursor !== null)
    expect(new Set(ids).size).toBe(ids.length)
    expect(ids.length).toBeGreaterThanOrEqual(3)
  })

  it('never writes a key to the logs', async () => {
    const issued = await t.issueKey(['registrar'])
    await t.createDomain(issued.key)
    await t.app.inject({ method: 'GET', url: '/v1/domains', headers: t.auth('dk_wrong_key_for_the_log_test') })
    const text = logs.text()
    expect(text).toContain('incoming request')
    expect(text).not.toContain(issued.key)
    expect(text).not.toContain(ADMIN_KEY)
    expect(text).not.toContain('dk_wrong_key_for_the_log_test')
  })
})
