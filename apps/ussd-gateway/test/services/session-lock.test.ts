import { randomBytes } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import { createMemoryState, createRedisState, type SharedState } from '@impact/shared-state'
import { describe, expect, it, onTestFinished } from 'vitest'
import { createSessionStore } from '../../src/services/session-store.ts'
import { dropRedisPrefix } from '../helper.ts'

const redisUrl = process.env.REDIS_URL
const LOCK_TTL_MS = 150
const LOCK_WAIT_MS = 400
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
    const store = createSessionStore(state, { ttlMs: 60_000, lockTtlMs: LOCK_TTL_MS, lockWaitMs: LOCK_WAIT_MS })
    onTestFinished(async () => {
      store.close()
      await state.close()
      await dropRedisPrefix(prefix)
    })
    return { store, state }
  }

  it('holds a second hop of the same session until the first releases it', async () => {
    const { store } = open()
    const first = await store.lock('s1')
    const second = store.lock('s1')
    expect(await settlesWithin(second, 60)).toBe(false)
    expect(await settlesWithin(store.lock('s2'), 60)).toBe(true)
    await store.unlock('s1', first)
    expect(await settlesWithin(second, 500)).toBe(true)
    await store.unlock('s1', await second)
    await store.unlock('s2', undefined)
  })

  it('keeps the lock of a hop that runs for several lock TTLs (a slow database)', async () => {
    const { store } = open()
    const slow = await store.lock('s1')
    await sleep(LOCK_TTL_MS * 3)
    expect(await settlesWithin(store.lock('s1'), 60)).toBe(false)
    await store.unlock('s1', slow)
  })

  it('gives up waiting for a session held past the wait limit with the busy error', async () => {
    const { store } = open()
    const held = await store.lock('s1')
    const started = Date.now()
    await expect(store.lock('s1')).rejects.toMatchObject({ code: 'USSD_SESSION_BUSY' })
    expect(Date.now() - started).toBeGreaterThanOrEqual(LOCK_WAIT_MS - 20)
    // The hop that gave up left the queue: the release frees the session for the next hop.
    await store.unlock('s1', held)
    expect(await settlesWithin(store.lock('s1'), 100)).toBe(true)
  })

  it.runIf(name === 'redis')('lets a hop that lost its lock release nothing that another hop holds', async () => {
    const { store, state } = open()
    const stale = await store.lock('s1')
    // The lock is gone (its replica stalled past the TTL): the next hop takes the session.
    await state.del('l:s1')
    const current = await store.lock('s1')
    await store.unlock('s1', stale)
    // The late release of the first hop left the next hop's lock in place.
    expect(await settlesWithin(store.lock('s1'), 60)).toBe(false)
    await store.unlock('s1', current)
  })
})
