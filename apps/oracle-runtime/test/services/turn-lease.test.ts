import type { SharedState } from '@impact/shared-state'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { fileHarness, testSharedState, type TestUser } from '../support/harness.ts'
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
  const shared = testSharedState('oracle-lease')
  // Registered before the app's: after-hooks run in reverse, so the state outlives the app.
  afterAll(async () => { await shared.drop() })
  const t = fileHarness({}, { listen: true, sharedState: slowToRelease(shared.state, 250) })
  let user: TestUser
  beforeAll(async () => { user = await t.h.user() })

  it('sends done only once the session is free, so a message sent on done is accepted', async () => {
    const sessionId = await t.h.newSession(user.headers)
    const base = t.base
    const first = await openStream(base, sessionId, user.headers, { message: 'first' })
    expect((await first.until('done')).at(-1)?.event).toBe('done')
    // Clients send their next message as soon as they see done, before the first body closes.
    const second = await streamMessage(base, sessionId, user.headers, { message: 'second' })
    expect(second.status).toBe(200)
    expect(second.frames.at(-1)?.event).toBe('done')
    await first.rest()
  })
})
