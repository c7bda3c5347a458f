import { beforeAll, describe, expect, it } from 'vitest'
import { until } from '@impact/service-kit/testing'
import { fileHarness, type TestUser } from '../support/harness.ts'
import { slowAnswer } from '../support/loopback-llm.ts'
import { openStream } from '../support/sse-client.ts'

describe('deleting a session while a message is being answered', () => {
  const t = fileHarness({}, { llm: true })
  let base: string
  let user: TestUser
  const statuses: number[] = []
  const remove = async (id: string) =>
    await t.h.app.inject({ method: 'DELETE', url: `/sessions/${id}`, headers: user.headers })

  beforeAll(async () => {
    // Every status the app answers, streams and late writes included.
    t.h.app.addHook('onResponse', async (_request, reply) => { statuses.push(reply.statusCode) })
    base = await t.h.app.listen({ host: '127.0.0.1', port: 0 })
    user = await t.h.user()
  })

  it('ends the stream with an error and done, cancels the model call, and a late message gets 404', async () => {
    const id = await t.h.newSession(user.headers)
    const cancelled = t.llm.cancelled()
    t.llm.enqueue(slowAnswer())
    const stream = await openStream(base, id, user.headers, { message: 'long' })
    await stream.until('message')
    expect((await remove(id)).statusCode).toBe(200)
    const { frames } = await stream.rest()
    expect(frames.slice(-2).map((f) => f.event)).toEqual(['error', 'done'])
    expect(frames.at(-2)?.data).toMatchObject({ kind: 'not_found', status: 404, sessionId: id })
    expect(frames.at(-1)?.data).toEqual({ aborted: true })
    expect(frames.some((f) => f.event === 'error' && f.data.kind === 'internal')).toBe(false)
    await until(() => t.llm.cancelled() > cancelled)
    const late = await t.h.send(user.headers, id, 'too late')
    expect(late.json()).toMatchObject({ statusCode: 404, code: 'ORACLE_SESSION_NOT_FOUND' })
    expect(statuses).not.toContain(500)
  })

  it('answers a JSON message whose session was deleted mid-turn with 404, not 500', async () => {
    const id = await t.h.newSession(user.headers)
    t.llm.enqueue(slowAnswer())
    const before = t.llm.requests.length
    const pending = t.h.send(user.headers, id, 'long')
    await until(() => t.llm.requests.length > before)
    expect((await remove(id)).statusCode).toBe(200)
    expect((await pending).json()).toMatchObject({ statusCode: 404, code: 'ORACLE_SESSION_NOT_FOUND' })
    expect(statuses).not.toContain(500)
  })
})
