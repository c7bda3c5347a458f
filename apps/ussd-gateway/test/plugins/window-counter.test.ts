import { describe, expect, it } from 'vitest'
import { WindowCounter } from '../../src/plugins/window-counter.ts'

describe('WindowCounter', () => {
  it('counts each key within a window and starts every key again when the window ends', () => {
    const counter = new WindowCounter(100)
    expect(counter.hit('a', 1000, 0)).toEqual({ current: 1, ttl: 1000 })
    expect(counter.hit('a', 1000, 400)).toEqual({ current: 2, ttl: 600 })
    expect(counter.hit('b', 1000, 500)).toEqual({ current: 1, ttl: 500 })
    expect(counter.peek('a', 999)).toEqual({ current: 2, ttl: 1 })
    expect(counter.hit('a', 1000, 1000)).toEqual({ current: 1, ttl: 1000 })
    expect(counter.peek('b', 1500)).toEqual({ current: 0, ttl: 500 })
    expect(counter.peek('a', 2000)).toEqual({ current: 0, ttl: 0 })
  })

  it('keeps the counts of keys still in use while a flood of new keys passes its capacity', () => {
    const counter = new WindowCounter(10)
    for (let i = 0; i < 1000; i++) {
      counter.hit('busy', 60_000, 1)
      counter.hit(`flood-${i}`, 60_000, 1)
    }
    expect(counter.peek('busy', 2).current).toBe(1000)
    // Old flood keys are gone (bounded memory); the most recent ones are still counted.
    expect(counter.peek('flood-0', 2).current).toBe(0)
    expect(counter.peek('flood-999', 2).current).toBe(1)
  })
})
