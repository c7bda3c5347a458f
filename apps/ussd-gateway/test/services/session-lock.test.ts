import { randomBytes } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import { createMemoryState, createRedisState, type SharedState } from '@impact/shared-state'
import { describe, expect, it, onTestFinished } from 'vitest'
import { createSessionStore } from '../../src/services/session-store.ts'
import { dropRedisPrefix } from '../helper.ts'

const redisUrl = process.env.REDIS_URL
const LOCK_TTL_MS = 150
const backends: Array<{ name: string, create: (prefix: string) => SharedState }> = [
  { name: 'in-process', create: () => createMemoryState() },
  ...(redisUrl !== undefined && redisUrl !== '' ? [{ name: 'redis', create: (prefix: string) => createRedisState({ url: redisUrl, prefix }) }] : [])
]

/** Whether `lock` settles within `ms` (a held lock keeps it waiting). */
async function settlesWithin (lock: unknown, ms: number): Promise<boolean> {
  return await Promise.race([Promise.resolve(lock).then(() => true), sleep(ms).then(() => false)])
}

describe.each(backends)('session locks ($name)', ({ name, create }) => {
  function open () {
    const prefix = `ussd-lock-${randomBytes(4).toString('hex')}:`
    const state = create(prefix)
    const store = createSessionStore(state, 60_000, LOCK_TTL_MS)
    onTestFinished(async () => {
      store.close()
      await state.close()
      await dropRedisPrefix(prefix)
    })
    return store
  }

  it('holds a second hop of the same session until the first releases it', async () => {
    const store = open()
    const first = await store.lock('s1')
    const second = store.lock('s1')
    expect(await settlesWithin(second, 60)).toBe(false)
    expect(await settlesWithin(store.lock('s2'), 60)).toBe(true)
    await store.unlock('s1', first)
    expect(await settlesWithin(second, 500)).toBe(true)
    await store.unlock('s1', await second)
    await store.unlock('s2', undefined)
  })

  it.runIf(name === 'redis')('lets a hop that outlived its lock release nothing that another hop holds', async () => {
    const store = open()
    const stale = await store.lock('s1')
    await sleep(LOCK_TTL_MS + 50)
    // The first lock expired: the next hop takes the session.
    const current = await store.lock('s1')
    await store.unlock('s1', stale)
    // The late release of the first hop left the next hop's lock in place.
    expect(await settlesWithin(store.lock('s1'), 60)).toBe(false)
    await store.unlock('s1', current)
  })
})
