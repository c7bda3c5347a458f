import { beforeAll, describe, expect, it } from 'vitest'
import { fileHarness, parseSse, type TestUser } from '../support/harness.ts'

describe('messages (offline agent, JSON replies)', () => {
  const t = fileHarness()
  let alice: TestUser
  let bob: TestUser
  let aliceSession: string
  let bobSession: string
  beforeAll(async () => {
    [alice, bob] = [await t.h.user(), await t.h.user()]
    aliceSession = await t.h.newSession(alice.headers)
    bobSession = await t.h.newSession(bob.headers)
  })

  const send = async (user: TestUser, sessionId: string, payload: Record<string, unknown>) =>
    await t.h.app.inject({
      method: 'POST',
      url: `/messages/${encodeURIComponent(sessionId)}`,
      headers: user.headers,
      payload
    })

  describe('POST /messages/:sessionId', () => {
    it('answers with a single JSON reply and stores both messages', async () => {
      const res = await send(alice, aliceSession, { message: 'What is a digital twin?' })
      expect(res.statusCode).toBe(200)
      const body = res.json()
      expect(body).toMatchObject({ sessionId: aliceSession, message: { type: 'ai' } })
      expect(body.message.content).toContain('What is a digital twin?')
      expect(body.requestId).toBe(res.headers['x-request-id'])
      expect(body.messages).toBeUndefined()
      const list = await t.h.app.inject({ method: 'GET', url: '/sessions', headers: alice.headers })
      expect(list.json().sessions[0]).toMatchObject({ sessionId: aliceSession, title: 'What is a digital twin?' })
    })

    it('streams the offline agent\'s answer as SSE, ending with done', async () => {
      const id = await t.h.newSession(alice.headers)
      const res = await t.h.app.inject({
        method: 'POST',
        url: `/messages/${id}`,
        headers: { ...alice.headers, 'x-request-id': 'offline-1' },
        payload: { message: 'stream me', stream: true }
      })
      expect(res.statusCode).toBe(200)
      expect(res.headers['x-request-id']).toBe('offline-1')
      const frames = parseSse(res.body)
      expect(frames.at(-1)?.event).toBe('done')
      expect(
        frames
          .filter((f) => f.event === 'message')
          .map((f) => f.data.content)
          .join('')
      ).toContain('You said: "stream me"')
    })

    it('returns the whole transcript with returnAllMessages', async () => {
      const res = await send(alice, aliceSession, { message: 'second', returnAllMessages: true, stream: false })
      const messages = res.json().messages
      expect(messages.map((m: { type: string }) => m.type)).toEqual(['human', 'ai', 'human', 'ai'])
      expect(messages.at(-1).id).toBe(res.json().message.id)
    })

    it('accepts everything the SDK sends, degenerate browser-tool schemas included', async () => {
      const res = await send(alice, aliceSession, {
        message: 'hello',
        stream: false,
        timezone: 'Europe/Berlin',
        model: 'offline',
        metadata: { editorRoomId: '!room:example.org' },
        homeServer: 'https://matrix.example.org',
        attachments: [{ mxcUri: 'mxc://example.org/abc', filename: 'a.png', mimetype: 'image/png', size: 12 }],
        tools: [
          {
            name: 'read_page',
            description: 'Reads the page',
            schema: { $schema: 'http://json-schema.org/draft-07/schema#' }
          }
        ],
        agActions: [
          {
            name: 'show_chart',
            description: 'Shows a chart',
            schema: { type: 'object', properties: {} },
            hasRender: true
          }
        ]
      })
      expect(res.statusCode).toBe(200)
      const history = await t.h.app.inject({ method: 'GET', url: `/messages/${aliceSession}`, headers: alice.headers })
      const human = history.json().messages.findLast((m: { type: string }) => m.type === 'human')
      expect(human).toMatchObject({
        content: 'hello',
        attachments: [{ mxcUri: 'mxc://example.org/abc' }],
        metadata: { editorRoomId: '!room:example.org' }
      })
    })

    it.each([
      ['an unknown key', { message: 'hi', surprise: true }],
      ['an empty message', { message: '' }],
      ['a blank message', { message: '   ' }],
      ['no message', { stream: false }],
      [
        'eleven attachments',
        {
          message: 'hi',
          attachments: Array.from({ length: 11 }, () => ({ eventId: '$e', filename: 'f', mimetype: 'text/plain' }))
        }
      ],
      [
        'an attachment without mxcUri or eventId',
        { message: 'hi', attachments: [{ filename: 'f', mimetype: 'text/plain' }] }
      ],
      ['a non-boolean stream', { message: 'hi', stream: 'yes' }],
      ['an unknown model', { message: 'hi', model: 'gpt-17' }],
      ['an unknown time zone', { message: 'hi', timezone: 'Mars/Olympus' }]
    ])('answers 400 to %s', async (_name, payload) => {
      const res = await send(alice, aliceSession, payload)
      expect(res.statusCode).toBe(400)
      expect(res.json()).toMatchObject({ statusCode: 400, error: 'Bad Request' })
    })

    it('answers 404 for a session that is not the caller\'s', async () => {
      const res = await send(alice, bobSession, { message: 'hi' })
      expect(res.statusCode).toBe(404)
      expect(res.json()).toMatchObject({ statusCode: 404, message: 'Session not found' })
      expect((await send(alice, 's_missing', { message: 'hi' })).statusCode).toBe(404)
    })

    it('uses a tool the user names and folds its result into the answer', async () => {
      const id = await t.h.newSession(alice.headers)
      const res = await send(alice, id, { message: 'please call me Grace' })
      expect(res.json().message.content).toContain('set_user_preferences: Updated.')
      const history = (await t.h.app.inject({ method: 'GET', url: `/messages/${id}`, headers: alice.headers })).json()
        .messages
      expect(history[1].toolCalls).toEqual([
        expect.objectContaining({ name: 'set_user_preferences', args: { userName: 'Grace' }, status: 'done' })
      ])
    })
  })

  describe('history', () => {
    it('GET /messages/:sessionId lists the transcript in order and 404s for others', async () => {
      const res = await t.h.app.inject({ method: 'GET', url: `/messages/${aliceSession}`, headers: alice.headers })
      expect(res.statusCode).toBe(200)
      const types = res.json().messages.map((m: { type: string }) => m.type)
      expect(types.slice(0, 2)).toEqual(['human', 'ai'])
      expect(
        (await t.h.app.inject({ method: 'GET', url: `/messages/${aliceSession}`, headers: bob.headers })).statusCode
      ).toBe(404)
    })

    it('pages by turns with cursors in both directions', async () => {
      const id = await t.h.newSession(bob.headers)
      for (let i = 1; i <= 5; i++) await send(bob, id, { message: `turn ${i}` })
      const url = (q: string) => `/sessions/${encodeURIComponent(id)}/messages?${q}`
      const first = (await t.h.app.inject({ method: 'GET', url: url('limit=2'), headers: bob.headers })).json()
      expect(
        first.messages.filter((m: { type: string }) => m.type === 'human').map((m: { content: string }) => m.content)
      ).toEqual(['turn 4', 'turn 5'])
      expect(first).toMatchObject({ hasOlder: true, hasNewer: false })
      const older = (
        await t.h.app.inject({ method: 'GET', url: url(`limit=2&before=${first.prevCursor}`), headers: bob.headers })
      ).json()
      expect(
        older.messages.filter((m: { type: string }) => m.type === 'human').map((m: { content: string }) => m.content)
      ).toEqual(['turn 2', 'turn 3'])
      expect(older).toMatchObject({ hasOlder: true, hasNewer: true })
      const oldest = (
        await t.h.app.inject({ method: 'GET', url: url(`limit=2&before=${older.prevCursor}`), headers: bob.headers })
      ).json()
      expect(oldest.messages.map((m: { type: string }) => m.type)).toEqual(['human', 'ai'])
      expect(oldest.hasOlder).toBe(false)
      const none = (
        await t.h.app.inject({ method: 'GET', url: url(`after=${first.nextCursor}`), headers: bob.headers })
      ).json()
      expect(none).toMatchObject({ messages: [], hasNewer: false, nextCursor: first.nextCursor })
      await send(bob, id, { message: 'turn 6' })
      const newer = (
        await t.h.app.inject({ method: 'GET', url: url(`after=${first.nextCursor}`), headers: bob.headers })
      ).json()
      expect(newer.messages.map((m: { content: string }) => m.content)[0]).toBe('turn 6')
      expect(newer.messages).toHaveLength(2)
    })

    it.each([
      ['both cursors', 'before=WzFd&after=WzFd'],
      ['a garbage cursor', 'before=zzz'],
      ['a limit over 100', 'limit=101']
    ])('answers 400 to %s', async (_name, query) => {
      const res = await t.h.app.inject({
        method: 'GET',
        url: `/sessions/${aliceSession}/messages?${query}`,
        headers: alice.headers
      })
      expect(res.statusCode).toBe(400)
      expect(res.json().statusCode).toBe(400)
    })

    it('answers 404 with statusCode in the body for another user\'s session', async () => {
      const url = `/sessions/${aliceSession}/messages`
      const res = await t.h.app.inject({ method: 'GET', url, headers: bob.headers })
      expect(res.json()).toMatchObject({ statusCode: 404 })
    })

    it('GET /sessions/:id/run reports no durable run', async () => {
      expect(
        (await t.h.app.inject({ method: 'GET', url: `/sessions/${aliceSession}/run`, headers: alice.headers })).json()
      ).toEqual({ run: null })
      expect(
        (await t.h.app.inject({ method: 'GET', url: `/sessions/${aliceSession}/run`, headers: bob.headers })).statusCode
      ).toBe(404)
    })
  })

  describe('POST /messages/abort', () => {
    it('answers success false when nothing is running', async () => {
      const res = await t.h.app.inject({
        method: 'POST',
        url: '/messages/abort',
        headers: alice.headers,
        payload: { sessionId: aliceSession }
      })
      expect(res.json()).toEqual({ success: false })
    })

    it("answers 404 for another user's session and 400 without a sessionId", async () => {
      expect(
        (
          await t.h.app.inject({
            method: 'POST',
            url: '/messages/abort',
            headers: alice.headers,
            payload: { sessionId: bobSession }
          })
        ).statusCode
      ).toBe(404)
      expect(
        (await t.h.app.inject({ method: 'POST', url: '/messages/abort', headers: alice.headers, payload: {} }))
          .statusCode
      ).toBe(400)
    })
  })
})
