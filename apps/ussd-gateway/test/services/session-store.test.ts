import { randomBytes } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import { createMemoryState, createRedisState, type SharedState } from '@impact/shared-state'
import { describe, expect, it, onTestFinished } from 'vitest'
import { createSession } from '../../src/services/session.ts'
import { createSessionStore } from '../../src/services/session-store.ts'
import { dropRedisPrefix } from '../helper.ts'

const redisUrl = process.env.REDIS_URL
const LOCK_TTL_MS = 150
const LOCK_WAIT_MS = 400
const backends: Array<{ name: string, create: (prefix: string) => SharedState }> = [
  { name: 'in-process', create: () => createMemoryState() },
  ...(redisUrl !== undefined && redisUrl !== ''
    ? [{ name: 'redis', create: (prefix: string) => createRedisState({ url: redisUrl, prefix }) }]
    : [])
]

/** A hop holding a session's lock until `finish` is called; `order` records when it ran. */
function holder (store: ReturnType<typeof createSessionStore>, sessionId: string, name: string, order: string[]) {
  let finish = () => {}
  let started = () => {}
  const running = new Promise<void>((resolve) => { started = resolve })
  const done = store.withLock(sessionId, async () => {
    order.push(`${name} starts`)
    started()
    await new Promise<void>((resolve) => { finish = resolve })
    order.push(`${name} ends`)
  })
  return { running, done, finish: () => { finish() } }
}

describe.each(backends)('session locks ($name)', ({ name, create }) => {
  function open () {
    const prefix = `ussd-lock-${randomBytes(4).toString('hex')}:`
    const state = create(prefix)
    const store = createSessionStore(state, { ttlMs: 60_000, lockTtlMs: LOCK_TTL_MS, lockWaitMs: LOCK_WAIT_MS })
    onTestFinished(async () => {
      await state.close()
      await dropRedisPrefix(prefix)
    })
    return { store, state }
  }

  it('runs a second hop of the same session only after the first, and other sessions meanwhile', async () => {
    const { store } = open()
    const order: string[] = []
    const first = holder(store, 's1', 'first', order)
    await first.running
    const second = holder(store, 's1', 'second', order)
    await store.withLock('s2', async () => { order.push('other session') })
    first.finish()
    await first.done
    await second.running
    second.finish()
    await second.done
    expect(order).toEqual(['first starts', 'other session', 'first ends', 'second starts', 'second ends'])
  })

  it('keeps the lock of a hop that runs for several lock TTLs (a slow database)', async () => {
    const { store } = open()
    const order: string[] = []
    const slow = holder(store, 's1', 'slow', order)
    await slow.running
    await sleep(LOCK_TTL_MS * 3)
    const next = holder(store, 's1', 'next', order)
    await sleep(60)
    slow.finish()
    await slow.done
    await next.running
    next.finish()
    await next.done
    expect(order).toEqual(['slow starts', 'slow ends', 'next starts', 'next ends'])
  })

  it('gives up waiting for a session held past the wait limit with the busy error, and frees nothing', async () => {
    const { store } = open()
    const order: string[] = []
    const held = holder(store, 's1', 'held', order)
    await held.running
    const waiter = store.withLock('s1', async () => { order.push('waiter') })
    await expect(waiter).rejects.toMatchObject({ code: 'USSD_SESSION_BUSY' })
    held.finish()
    await held.done
    await store.withLock('s1', async () => { order.push('after') })
    expect(order).toEqual(['held starts', 'held ends', 'after'])
  })

  it('releases the lock of a hop that failed', async () => {
    const { store } = open()
    await expect(store.withLock('s1', async () => { throw new Error('boom') })).rejects.toThrow('boom')
    expect(await store.withLock('s1', async () => 'next')).toBe('next')
  })

  it.runIf(name === 'redis')('lets a hop that lost its lock release nothing that another hop holds', async () => {
    const { store, state } = open()
    const order: string[] = []
    const stale = holder(store, 's1', 'stale', order)
    await stale.running
    // The lock is gone (its replica stalled past the TTL): the next hop takes the session.
    await state.del('l:s1')
    const current = holder(store, 's1', 'current', order)
    await current.running
    stale.finish()
    await stale.done
    // The late release of the first hop left the next hop's lock in place.
    const third = holder(store, 's1', 'third', order)
    await sleep(60)
    current.finish()
    await current.done
    await third.running
    third.finish()
    await third.done
    expect(order).toEqual([
      'stale starts', 'current starts', 'stale ends', 'current ends', 'third starts', 'third ends'
    ])
  })
})

describe.each(backends)('session records ($name)', ({ create }) => {
  const TTL_MS = 180_000
  function open () {
    const prefix = `ussd-store-${randomBytes(4).toString('hex')}:`
    const state = create(prefix)
    let now = Date.now()
    const store = createSessionStore(state, { ttlMs: TTL_MS, now: () => now })
    onTestFinished(async () => {
      await state.close()
      await dropRedisPrefix(prefix)
    })
    return { store, advance: (ms: number) => { now += ms } }
  }
  const session = (id: string) =>
    createSession({ id, phone: '+254711000001', state: 'knowMore', message: 'Know More', keptText: '1' })

  it('hands every reader a copy of its own: a change is kept only once saved', async () => {
    const { store } = open()
    await store.save(session('a'))
    const copy = await store.get('a')
    if (copy === undefined) throw new Error('no session')
    copy.state = 'preMenu'
    expect(await store.get('a')).toMatchObject({ state: 'knowMore' })
    await store.save(copy)
    expect(await store.get('a')).toMatchObject({ state: 'preMenu' })
  })

  it('expires a session by its clock, restarted by each save, and remembers that it expired', async () => {
    const { store, advance } = open()
    await store.save(session('a'))
    advance(TTL_MS - 1)
    await store.save(session('a'))
    advance(TTL_MS - 1)
    expect(await store.get('a')).toBeDefined()
    advance(2)
    expect(await store.get('a')).toBeUndefined()
    expect(await store.expired('a')).toBe(true)
    expect(await store.list(10)).toEqual([])
    await store.remove('a')
    expect(await store.expired('a')).toBe(false)
  })

  it('keeps the reply of an ended session for a minute, and no live session', async () => {
    const { store, advance } = open()
    await store.save(session('a'))
    await store.finish(session('a'), { phone: '+254711000001', keptText: '1*0', message: 'Goodbye' })
    expect(await store.get('a')).toBeUndefined()
    expect(await store.expired('a')).toBe(false)
    expect(await store.ended('a')).toMatchObject({ keptText: '1*0', message: 'Goodbye' })
    advance(60_001)
    expect(await store.ended('a')).toBeUndefined()
  })
})
