import { randomBytes } from 'node:crypto'
import { describe, expect, it, onTestFinished } from 'vitest'
import {
  createMemoryState,
  createRedisState,
  createSharedState,
  redisClientOf,
  type SharedState
} from '../src/index.ts'

const redisUrl = process.env.REDIS_URL
// In-process always; Redis whenever REDIS_URL is set (the CI server pass).
const backends: Array<{ name: string, create: () => SharedState }> = [
  { name: 'memory', create: () => createMemoryState() },
  ...(redisUrl !== undefined
    ? [{
        name: 'redis',
        create: () => createRedisState({ url: redisUrl, prefix: `test:${randomBytes(4).toString('hex')}:` })
      }]
    : [])
]

const sleep = async (ms: number) => await new Promise((resolve) => setTimeout(resolve, ms))

describe.each(backends)('SharedState on $name', ({ create }) => {
  function open () {
    const state = create()
    onTestFinished(async () => {
      for (const key of await state.scan('')) await state.del(key)
      await state.close()
    })
    return state
  }

  it('stores, reads and deletes values', async () => {
    const state = open()
    expect(await state.get('k')).toBeNull()
    expect(await state.set('k', 'v')).toBe(true)
    expect(await state.get('k')).toBe('v')
    expect(await state.ttl('k')).toBe(-1)
    expect(await state.del('k')).toBe(true)
    expect(await state.del('k')).toBe(false)
    expect(await state.ttl('k')).toBe(-2)
  })

  it('expires keys after their TTL and slides it on getAndTouch', async () => {
    const state = open()
    await state.set('short', '1', { ttlMs: 80 })
    await state.set('sliding', '2', { ttlMs: 120 })
    await sleep(70)
    expect(await state.getAndTouch('sliding', 120)).toBe('2')
    await sleep(70)
    expect(await state.get('short')).toBeNull()
    expect(await state.get('sliding')).toBe('2')
    expect(await state.getAndTouch('short', 100)).toBeNull()
  })

  it('writes only absent keys with ifAbsent', async () => {
    const state = open()
    expect(await state.set('once', 'a', { ifAbsent: true })).toBe(true)
    expect(await state.set('once', 'b', { ifAbsent: true, ttlMs: 1000 })).toBe(false)
    expect(await state.get('once')).toBe('a')
  })

  it('counts an ifAbsent write retried with the value it already wrote as written', async () => {
    const state = open()
    expect(await state.set('lease', 'token-1', { ifAbsent: true, ttlMs: 1000 })).toBe(true)
    expect(await state.set('lease', 'token-1', { ifAbsent: true, ttlMs: 1000 })).toBe(true)
    expect(await state.set('lease', 'token-2', { ifAbsent: true, ttlMs: 1000 })).toBe(false)
    expect(await state.get('lease')).toBe('token-1')
  })

  it('deletes and touches a key only while it holds the given value', async () => {
    const state = open()
    await state.set('lock', 'mine', { ttlMs: 100 })
    expect(await state.touchIfValue('lock', 'theirs', 10_000)).toBe(false)
    expect(await state.delIfValue('lock', 'theirs')).toBe(false)
    expect(await state.get('lock')).toBe('mine')
    expect(await state.touchIfValue('lock', 'mine', 10_000)).toBe(true)
    expect(await state.ttl('lock')).toBeGreaterThan(5_000)
    expect(await state.delIfValue('lock', 'mine')).toBe(true)
    expect(await state.get('lock')).toBeNull()
    expect(await state.delIfValue('lock', 'mine')).toBe(false)
    expect(await state.touchIfValue('lock', 'mine', 10_000)).toBe(false)
  })

  it('replaces a value only while the key holds the expected one, and one of racing claimants wins', async () => {
    const state = open()
    expect(await state.replaceIfValue('lease', 'old', 'new', 10_000)).toBe(false)
    expect(await state.get('lease')).toBeNull()
    await state.set('lease', 'old', { ttlMs: 100 })
    expect(await state.replaceIfValue('lease', 'other', 'new', 10_000)).toBe(false)
    expect(await state.get('lease')).toBe('old')
    const claim = async (who: string) => await state.replaceIfValue('lease', 'old', who, 10_000)
    const claims = await Promise.all(['a', 'b', 'c', 'd'].map(claim))
    expect(claims.filter(Boolean)).toHaveLength(1)
    expect(await state.get('lease')).toBe(['a', 'b', 'c', 'd'][claims.indexOf(true)])
    expect(await state.ttl('lease')).toBeGreaterThan(5_000)
  })

  it('counts with a fixed window', async () => {
    const state = open()
    expect(await state.incr('hits', { ttlMs: 100 })).toBe(1)
    await sleep(40)
    expect(await state.incr('hits', { ttlMs: 100, by: 2 })).toBe(3)
    await sleep(80)
    expect(await state.incr('hits', { ttlMs: 100 })).toBe(1)
  })

  it('counts exactly under concurrency', async () => {
    const state = open()
    await Promise.all(Array.from({ length: 200 }, async () => await state.incr('c')))
    expect(await state.get('c')).toBe('200')
  })

  it('scans keys by prefix', async () => {
    const state = open()
    await Promise.all(['s:1', 's:2', 's:3', 'other'].map(async (k) => await state.set(k, 'x')))
    expect((await state.scan('s:')).sort()).toEqual(['s:1', 's:2', 's:3'])
    expect(await state.scan('s:', 2)).toHaveLength(2)
    expect(await state.scan('s*')).toEqual([])
  })

  it('hands out scheduled members once due, earliest first, and moves or removes them', async () => {
    const state = open()
    onTestFinished(async () => { for (const m of ['a', 'b', 'c']) await state.unschedule('queue', m) })
    await state.schedule('queue', 'b', 2000)
    await state.schedule('queue', 'a', 1000)
    await state.schedule('queue', 'c', 9000)
    expect(await state.due('queue', 5000, 10)).toEqual([{ member: 'a', at: 1000 }, { member: 'b', at: 2000 }])
    expect(await state.due('queue', 5000, 1)).toEqual([{ member: 'a', at: 1000 }])
    await state.schedule('queue', 'a', 3000)
    expect(await state.due('queue', 2500, 10)).toEqual([{ member: 'b', at: 2000 }])
    expect(await state.unschedule('queue', 'c', { dueBy: 5000 })).toBe(false)
    expect(await state.unschedule('queue', 'b', { dueBy: 5000 })).toBe(true)
    expect(await state.unschedule('queue', 'b')).toBe(false)
    expect(await state.unschedule('queue', 'c')).toBe(true)
    expect(await state.due('queue', 1e13, 10)).toEqual([{ member: 'a', at: 3000 }])
    expect(await state.due('empty', 1e13, 10)).toEqual([])
  })

  it('lets one of racing claimants take a due member, which falls due again at the claim\'s time', async () => {
    const state = open()
    onTestFinished(async () => { await state.unschedule('jobs', 'j1') })
    const now = 1_765_000_000_000
    await state.schedule('jobs', 'j1', now)
    expect(await state.claimDue('jobs', 'j1', now - 1, now + 60_000)).toBe(false)
    expect(await state.claimDue('jobs', 'absent', now, now + 60_000)).toBe(false)
    const claims = await Promise.all(Array.from({ length: 6 }, async () =>
      await state.claimDue('jobs', 'j1', now, now + 60_000)))
    expect(claims.filter(Boolean)).toHaveLength(1)
    expect(await state.due('jobs', now + 59_999, 10)).toEqual([])
    expect(await state.due('jobs', now + 60_000, 10)).toEqual([{ member: 'j1', at: now + 60_000 }])
  })

  it('delivers published messages to every subscriber until they unsubscribe', async () => {
    const state = open()
    const a: string[] = []
    const b: string[] = []
    const offA = await state.subscribe('events', (m) => a.push(m))
    await state.subscribe('events', (m) => b.push(m))
    await state.publish('events', 'one')
    await sleep(50)
    await offA()
    await state.publish('events', 'two')
    await sleep(50)
    expect(a).toEqual(['one'])
    expect(b).toEqual(['one', 'two'])
  })

  it('answers ping', async () => {
    await expect(open().ping()).resolves.toBeUndefined()
  })
})

describe.runIf(redisUrl !== undefined)('two Redis-backed replicas', () => {
  it('see each other\'s keys and messages within one prefix, and nothing across prefixes', async () => {
    const prefix = `test:${randomBytes(4).toString('hex')}:`
    const one = createSharedState({ url: redisUrl, prefix })
    const two = createSharedState({ url: redisUrl, prefix })
    const stranger = createSharedState({ url: redisUrl, prefix: `${prefix}other:` })
    onTestFinished(async () => {
      await one.del('session')
      await Promise.all([one.close(), two.close(), stranger.close()])
    })
    const seen: string[] = []
    await two.subscribe('abort', (m) => seen.push(m))
    await one.set('session', 'state', { ttlMs: 5000 })
    await one.publish('abort', 'S1')
    await sleep(50)
    expect(await two.get('session')).toBe('state')
    expect(await stranger.get('session')).toBeNull()
    expect(seen).toEqual(['S1'])
  })
})

describe('createSharedState', () => {
  it('is in-process without a URL', async () => {
    const state = createSharedState({ prefix: 'x:' })
    expect(state.kind).toBe('memory')
    expect(redisClientOf(state)).toBeUndefined()
    await state.close()
  })

  it.runIf(redisUrl !== undefined)('lends its Redis connection to libraries that speak Redis themselves', async () => {
    const state = createSharedState({ url: redisUrl, prefix: 'x:' })
    onTestFinished(async () => { await state.close() })
    expect(state.kind).toBe('redis')
    expect(await redisClientOf(state)?.ping()).toBe('PONG')
  })
})
