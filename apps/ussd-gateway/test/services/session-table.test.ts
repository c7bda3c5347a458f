import { describe, expect, it } from 'vitest'
import { sameChars, SessionTable } from '../../src/services/session-table.ts'

interface Value { id: string, n: number }

/** A small deterministic generator, so a failure replays. */
function random (seed: number) {
  let state = seed
  return (below: number) => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0
    return state % below
  }
}

describe('the live-session table', () => {
  it('agrees with a Map through inserts, replacements and deletions, growing and shrinking', () => {
    const table = new SessionTable<Value>()
    const model = new Map<string, Value>()
    const next = random(7)
    // Few distinct ids and many operations: long probe runs, deletions inside them, resizes both ways.
    for (let step = 0; step < 60_000; step++) {
      const id = `ATUid_${next(step < 40_000 ? 3000 : 40).toString(16).padStart(32, '0')}`
      const op = next(10)
      if (op < 5) {
        const value = { id, n: step }
        table.set(value)
        model.set(id, value)
      } else if (op < 8) {
        expect(table.delete(id)).toBe(model.delete(id))
      } else {
        expect(table.get(id)).toBe(model.get(id))
      }
      if (step % 5000 === 0) {
        expect(table.size).toBe(model.size)
        for (const [key, value] of model) expect(table.get(key)).toBe(value)
      }
    }
    expect(table.size).toBe(model.size)
    expect(new Set(table.values())).toEqual(new Set(model.values()))
    for (const [key, value] of model) expect(table.get(key)).toBe(value)
  })

  it('tells ids apart by every character, whatever string the request made', () => {
    const table = new SessionTable<Value>()
    const body = 'sessionId=ATUid_0000000000000000000000000000000a&text=1'
    const stored = { id: 'ATUid_0000000000000000000000000000000a', n: 1 }
    table.set(stored)
    // A slice of a request body, as the form parser hands it over.
    expect(table.get(body.slice(10, 48))).toBe(stored)
    expect(table.get('ATUid_0000000000000000000000000000000b')).toBeUndefined()
    expect(table.get('ATUid_0000000000000000000000000000000')).toBeUndefined()
    table.clear()
    expect(table.get(stored.id)).toBeUndefined()
    expect(table.size).toBe(0)
  })

  it('compares strings by characters', () => {
    expect(sameChars('+254700000001', `+${'254700000001'}`)).toBe(true)
    expect(sameChars('+254700000001', '+254700000002')).toBe(false)
    expect(sameChars('+25470000000', '+254700000001')).toBe(false)
  })
})
