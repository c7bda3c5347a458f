import { beforeAll, describe, expect, it } from 'vitest'
import { fileHarness, type TestUser } from '../support/harness.ts'

describe('sessions', () => {
  const t = fileHarness({ ORACLE_NAME: 'Ada' })
  let alice: TestUser
  let bob: TestUser
  beforeAll(async () => { [alice, bob] = [await t.h.user(), await t.h.user()] })

  const create = async (user: TestUser) =>
    await t.h.app.inject({
      method: 'POST',
      url: '/sessions',
      headers: { ...user.headers, 'content-type': 'application/json' }
    })

  describe('POST /sessions', () => {
    it('creates a session from an empty JSON body', async () => {
      const res = await create(alice)
      expect(res.statusCode).toBe(201)
      const session = res.json()
      expect(session).toMatchObject({ title: 'New chat', oracleName: 'Ada', oracleDid: t.h.oracleDid })
      expect(session.sessionId).toMatch(/^s_[0-9a-f-]{36}$/)
      expect(Date.parse(session.createdAt)).not.toBeNaN()
      expect(Date.parse(session.lastUpdatedAt)).not.toBeNaN()
    })

    it('still refuses malformed JSON', async () => {
      const res = await t.h.app.inject({
        method: 'POST',
        url: '/sessions',
        headers: { ...alice.headers, 'content-type': 'application/json' },
        payload: '{oops'
      })
      expect(res.statusCode).toBe(400)
      expect(res.json().statusCode).toBe(400)
    })
  })

  describe('GET /sessions', () => {
    it('pages the caller\'s sessions, newest activity first, with the total', async () => {
      const user = await t.h.user()
      const ids: string[] = []
      for (let i = 0; i < 5; i++) ids.push((await create(user)).json().sessionId)
      const all = await t.h.app.inject({ method: 'GET', url: '/sessions', headers: user.headers })
      expect(all.json().total).toBe(5)
      expect(all.json().sessions.map((s: { sessionId: string }) => s.sessionId)).toEqual([...ids].reverse())
      const page = await t.h.app.inject({ method: 'GET', url: '/sessions?limit=2&offset=2', headers: user.headers })
      expect(page.json()).toMatchObject({ total: 5 })
      expect(page.json().sessions.map((s: { sessionId: string }) => s.sessionId)).toEqual([ids[2], ids[1]])
      const beyond = await t.h.app.inject({ method: 'GET', url: '/sessions?offset=10', headers: user.headers })
      expect(beyond.json()).toEqual({ sessions: [], total: 5 })
    })

    it.each(['limit=0', 'limit=101', 'offset=-1', 'limit=abc', 'extra=1'])('answers 400 to %s', async (query) => {
      const res = await t.h.app.inject({ method: 'GET', url: `/sessions?${query}`, headers: alice.headers })
      expect(res.statusCode).toBe(400)
      expect(res.json()).toMatchObject({ statusCode: 400, error: 'Bad Request' })
    })

    it('never lists another user\'s sessions', async () => {
      const own = (await create(bob)).json().sessionId
      const list = await t.h.app.inject({ method: 'GET', url: '/sessions?limit=100', headers: alice.headers })
      expect(list.json().sessions.map((s: { sessionId: string }) => s.sessionId)).not.toContain(own)
    })
  })

  describe('DELETE /sessions/:sessionId', () => {
    it('deletes the session with its messages and says so in JSON', async () => {
      const id = (await create(alice)).json().sessionId
      await t.h.app.inject({
        method: 'POST',
        url: `/messages/${id}`,
        headers: alice.headers,
        payload: { message: 'hello' }
      })
      const res = await t.h.app.inject({
        method: 'DELETE',
        url: `/sessions/${id}`,
        headers: { ...alice.headers, 'content-type': 'application/json' }
      })
      expect(res.statusCode).toBe(200)
      expect(res.json()).toEqual({ message: 'Session deleted successfully' })
      const again = await t.h.app.inject({ method: 'DELETE', url: `/sessions/${id}`, headers: alice.headers })
      expect(again.statusCode).toBe(404)
      expect(again.json()).toMatchObject({ statusCode: 404, message: 'Session not found' })
      expect((await t.h.app.inject({ method: 'GET', url: `/messages/${id}`, headers: alice.headers })).statusCode).toBe(
        404
      )
    })

    it('answers 404 for another user\'s session and leaves it alone', async () => {
      const id = (await create(bob)).json().sessionId
      const res = await t.h.app.inject({ method: 'DELETE', url: `/sessions/${id}`, headers: alice.headers })
      expect(res.statusCode).toBe(404)
      const read = await t.h.app.inject({ method: 'GET', url: `/messages/${id}`, headers: bob.headers })
      expect(read.statusCode).toBe(200)
    })
  })
})
