import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { LiveSessions } from '../../src/services/live-sessions.ts'
import { createSession, type Session } from '../../src/services/session.ts'

const session = (id: string) => createSession({ id, phone: '+254711000001', state: 'preMenu', message: '' })

describe('live sessions of one replica', () => {
  let expired: string[]
  let table: LiveSessions
  beforeEach(() => {
    vi.useFakeTimers()
    expired = []
    table = new LiveSessions(1000, (s: Session) => { expired.push(s.id) })
  })
  afterEach(() => {
    table.close()
    vi.useRealTimers()
  })

  it('keeps a session for its TTL after each touch, then drops it and tells', () => {
    const s = session('a')
    table.set(s)
    vi.advanceTimersByTime(800)
    expect(table.get('a', true)).toBe(s)
    vi.advanceTimersByTime(800)
    // Read without touching: the TTL runs from the touch above.
    expect(table.get('a')).toBe(s)
    vi.advanceTimersByTime(300)
    expect(table.get('a')).toBeUndefined()
    expect(expired).toEqual(['a'])
    expect(table.ids(10)).toEqual([])
  })

  it('deletes without telling, and answers whether a live session was deleted', () => {
    table.set(session('a'))
    expect(table.delete('a')).toBe(true)
    expect(table.delete('a')).toBe(false)
    expect(expired).toEqual([])
  })

  it('replaces the stored object with another one of the same id', () => {
    const first = session('a')
    const second = { ...first }
    table.set(first)
    table.set(second)
    expect(table.get('a')).toBe(second)
  })

  it('sweeps expired sessions nobody reads', () => {
    for (const id of ['a', 'b', 'c']) table.set(session(id))
    vi.advanceTimersByTime(31_000)
    expect(expired.sort()).toEqual(['a', 'b', 'c'])
  })

  it('lists at most the asked number of live ids', () => {
    for (const id of ['a', 'b', 'c']) table.set(session(id))
    expect(table.ids(2)).toEqual(['a', 'b'])
  })
})
