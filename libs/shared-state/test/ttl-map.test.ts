import { afterEach, describe, expect, it, vi } from 'vitest'
import { TtlMap } from '../src/index.ts'

describe('TtlMap', () => {
  afterEach(() => { vi.useRealTimers() })

  it('tells onExpire of entries whose TTL ran out, found on read or by the sweep, and not of deleted ones', () => {
    vi.useFakeTimers()
    const expired: Array<[string, number]> = []
    const map = new TtlMap<number>((key, value) => expired.push([key, value]))
    try {
      map.set('read', 1, 1000)
      map.set('swept', 2, 1000)
      map.set('deleted', 3, 1000)
      map.set('kept', 4)
      map.delete('deleted')
      vi.advanceTimersByTime(1500)
      expect(map.get('read')).toBeUndefined()
      expect(expired).toEqual([['read', 1]])
      // The sweep runs every 30 s and finds the rest.
      vi.advanceTimersByTime(30_000)
      expect(expired).toEqual([['read', 1], ['swept', 2]])
      expect(map.get('kept')).toBe(4)
      expect(map.keys()).toEqual(['kept'])
      // Deleting an entry that has expired unseen reports it; overwriting one with `set` does not.
      map.set('gone', 5, 1000)
      map.set('renewed', 6, 1000)
      vi.advanceTimersByTime(1500)
      expect(map.delete('gone')).toBe(false)
      map.set('renewed', 7, 1000)
      expect(expired).toEqual([['read', 1], ['swept', 2], ['gone', 5]])
      expect(map.get('renewed')).toBe(7)
    } finally {
      map.close()
    }
  })
})
