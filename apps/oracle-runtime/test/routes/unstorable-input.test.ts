import { beforeAll, describe, expect, it } from 'vitest'
import { fileHarness, type TestUser } from '../support/harness.ts'

describe('input that passes the schema but cannot be stored', () => {
  const t = fileHarness()
  let alice: TestUser
  let sessionId: string
  beforeAll(async () => {
    alice = await t.h.user()
    sessionId = await t.h.newSession(alice.headers)
  })

  const json = () => ({ ...alice.headers, 'content-type': 'application/json' })

  it('answers 400 for U+0000 in a session id path parameter', async () => {
    const requests = [['DELETE', '/sessions/%00'], ['GET', '/messages/%00'], ['POST', '/messages/s_%00']] as const
    for (const [method, url] of requests) {
      const body = method === 'POST' ? { payload: { message: 'hi' } } : {}
      const res = await t.h.app.inject({ method, url, headers: json(), ...body })
      expect(res.statusCode, `${method} ${url}`).toBe(400)
      expect(res.json()).toMatchObject({ statusCode: 400, code: 'FST_ERR_VALIDATION' })
    }
  })

  it('answers 400 for U+0000 in the message text and keeps the session\'s history clean', async () => {
    const res = await t.h.app.inject({
      method: 'POST',
      url: `/messages/${sessionId}`,
      headers: json(),
      payload: { message: 'charcoal\u0000saved' }
    })
    expect(res.statusCode).toBe(400)
    const history = await t.h.app.inject({ method: 'GET', url: `/messages/${sessionId}`, headers: alice.headers })
    expect(history.statusCode).toBe(200)
    expect(history.body).not.toContain('charcoal')
  })

  it('answers 400 for message metadata nested thousands of levels deep', async () => {
    const payload = `{"message":"hi","metadata":${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}}`
    const res = await t.h.app.inject({ method: 'POST', url: `/messages/${sessionId}`, headers: json(), payload })
    expect(res.statusCode).toBe(400)
    expect(res.json().details[0].message).toMatch(/deeper than 32 levels/)
  })
})
