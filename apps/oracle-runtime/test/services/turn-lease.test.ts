import { randomBytes } from 'node:crypto'
import { createSharedState, type SharedState } from '@impact/shared-state'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createHarness, type Harness, type TestUser } from '../support/harness.ts'
import { openStream, streamMessage } from '../support/sse-client.ts'

/** The real shared state, but releasing keys as slowly as a distant Redis might. */
function slowToRelease (state: SharedState, ms: number): SharedState {
  const later = async () => { await new Promise((resolve) => setTimeout(resolve, ms)) }
  return {
    ...state,
    del: async (key) => { await later(); return await state.del(key) },
    delIfValue: async (key, value) => { await later(); return await state.delIfValue(key, value) }
  }
}

describe('the turn lease and the done frame', () => {
  let state: SharedState
  let h: Harness
  let base: string
  let user: TestUser

  beforeAll(async () => {
    state = createSharedState({ url: process.env.REDIS_URL, prefix: `oracle-lease-${randomBytes(4).toString('hex')}:` })
    h = await createHarness({}, { sharedState: slowToRelease(state, 250) })
    base = await h.app.listen({ host: '127.0.0.1', port: 0 })
    user = await h.user()
  })
  afterAll(async () => {
    await h?.close()
    for (const key of await state.scan('')) await state.del(key)
    await state?.close()
  })

  it('sends done only once the session is free, so a message sent on done is accepted', async () => {
    const sessionId = (await h.app.inject({ method: 'POST', url: '/sessions', headers: user.headers })).json().sessionId as string
    const first = await openStream(base, sessionId, user.headers, { message: 'first' })
    expect((await first.until('done')).at(-1)?.event).toBe('done')
    // Clients send their next message as soon as they see done, before the first body closes.
    const second = await streamMessage(base, sessionId, user.headers, { message: 'second' })
    expect(second.status).toBe(200)
    expect(second.frames.at(-1)?.event).toBe('done')
    await first.rest()
  })
})
