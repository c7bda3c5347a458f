import { describe, expect, it } from 'vitest'
import { KeyCounts, NumberCounts, type Counts } from '../../src/services/counts.ts'
import { WindowCounter } from '../../src/plugins/window-counter.ts'

// The same counter over both tables: string keys (client IPs) and numeric keys (phone digits).
const tables = [
  { name: 'string keys', table: (limit: number): Counts<string> => new KeyCounts(limit), key: (i: number) => `key-${i}` },
  { name: 'numeric keys', table: (limit: number): Counts<number> => new NumberCounts(limit), key: (i: number) => 254_700_000_000 + i }
] as const

describe.each(tables)('WindowCounter over $name', ({ table, key }) => {
  const counter = (capacity: number) => new WindowCounter<string | number>(capacity, table as (limit: number) => Counts<string | number>)

  it('counts each key within a window and starts every key again when the window ends', () => {
    const c = counter(100)
    const [a, b] = [key(1), key(2)]
    expect(c.hit(a, 1000, 0)).toEqual({ current: 1, ttl: 1000 })
    expect(c.hit(a, 1000, 400)).toEqual({ current: 2, ttl: 600 })
    expect(c.hit(b, 1000, 500)).toEqual({ current: 1, ttl: 500 })
    expect(c.peek(a, 999)).toEqual({ current: 2, ttl: 1 })
    expect(c.hit(a, 1000, 1000)).toEqual({ current: 1, ttl: 1000 })
    expect(c.peek(b, 1500)).toEqual({ current: 0, ttl: 500 })
    expect(c.peek(a, 2000)).toEqual({ current: 0, ttl: 0 })
  })

  it('keeps the counts of keys still in use while a flood of new keys passes its capacity', () => {
    const c = counter(10)
    const busy = key(0)
    for (let i = 1; i <= 1000; i++) {
      c.hit(busy, 60_000, 1)
      c.hit(key(i), 60_000, 1)
    }
    expect(c.peek(busy, 2).current).toBe(1000)
    // Old flood keys are gone (bounded memory); the most recent ones are still counted.
    expect(c.peek(key(1), 2).current).toBe(0)
    expect(c.peek(key(1000), 2).current).toBe(1)
  })

  it('counts many keys exactly while they fit', () => {
    const c = counter(20_000)
    for (let round = 1; round <= 3; round++) for (let i = 1; i <= 9_000; i++) c.hit(key(i), 60_000, 1)
    for (let i = 1; i <= 9_000; i += 997) expect(c.peek(key(i), 2).current).toBe(3)
    expect(c.peek(key(9_001), 2).current).toBe(0)
  })
})

describe('NumberCounts', () => {
  it('refuses a new key past its limit, never an update of a present one', () => {
    const counts = new NumberCounts(4)
    for (let i = 1; i <= 4; i++) expect(counts.set(i, i)).toBe(true)
    expect(counts.set(5, 1)).toBe(false)
    expect(counts.set(2, 7)).toBe(true)
    expect([counts.get(1), counts.get(2), counts.get(5)]).toEqual([1, 7, 0])
    counts.clear()
    expect(counts.get(2)).toBe(0)
    expect(counts.set(5, 1)).toBe(true)
  })
})
