import { randomInt } from 'node:crypto'

/** One generation of request counts: at most `limit` keys, the rest is refused (the counter rotates). */
export interface Counts<K> {
  /** The key's count; 0 when absent. */
  get: (key: K) => number
  /** Sets the key's count; false when a new key finds no room. */
  set: (key: K, count: number) => boolean
  clear: () => void
}

/** Counts of any string key (client IPs) in a Map. */
export class KeyCounts implements Counts<string> {
  readonly #counts = new Map<string, number>()
  readonly #limit: number

  constructor (limit: number) {
    this.#limit = limit
  }

  get (key: string): number {
    return this.#counts.get(key) ?? 0
  }

  set (key: string, count: number): boolean {
    if (this.#counts.size >= this.#limit && !this.#counts.has(key)) return false
    this.#counts.set(key, count)
    return true
  }

  clear (): void {
    this.#counts.clear()
  }
}

/**
 * A NumberCounts key for a phone number: an E.164 number's digits as one number, exact (at most 15
 * digits, under 2^53) and never 0 (no leading 0). Only for numbers the request schema validated.
 */
export function phoneDigits (phone: string): number {
  let value = 0
  for (let i = phone.charCodeAt(0) === 43 ? 1 : 0; i < phone.length; i++) value = value * 10 + phone.charCodeAt(i) - 48
  return value
}

/** Slots probed for a key before the table counts as full: a bound on every lookup's cost. */
const MAX_PROBES = 32
const TWO_32 = 2 ** 32

/**
 * Counts of positive integer keys up to 2^53 (a phone number's digits) in an open-addressed table
 * of one Float64Array, key and count side by side: a lookup reads one or two cache lines and a new
 * key allocates nothing. A Map of phone-number strings read a bucket, an entry and the key string,
 * each a likely cache miss with a busy replica's memory around it, and the profile put it first
 * among the gateway's own costs per hop. The hash is seeded per table, so nobody can choose
 * phone numbers that collide; and probing stops after MAX_PROBES slots (a full table), whatever
 * the keys. The table has at least twice `limit` slots, so probes stay short.
 */
export class NumberCounts implements Counts<number> {
  readonly #slots: Float64Array
  readonly #mask: number
  readonly #limit: number
  readonly #seed = randomInt(TWO_32 / 2)
  #size = 0

  constructor (limit: number) {
    let slots = 16
    while (slots < limit * 2) slots *= 2
    this.#slots = new Float64Array(slots * 2)
    this.#mask = slots - 1
    this.#limit = limit
  }

  /** The slot holding `key`, else the empty slot where it would go; -1 when none is in reach. */
  #find (key: number): number {
    let hash = Math.imul((key >>> 0) ^ this.#seed, 0x9e3779b1) ^ Math.imul(Math.floor(key / TWO_32) + this.#seed, 0x85ebca6b)
    hash = Math.imul(hash ^ (hash >>> 16), 0x7feb352d)
    hash ^= hash >>> 15
    for (let probe = 0, slot = hash & this.#mask; probe < MAX_PROBES; probe++, slot = (slot + 1) & this.#mask) {
      const held = this.#slots[slot * 2]
      if (held === key || held === 0) return slot
    }
    return -1
  }

  get (key: number): number {
    const slot = this.#find(key)
    return slot >= 0 && this.#slots[slot * 2] === key ? this.#slots[slot * 2 + 1] ?? 0 : 0
  }

  set (key: number, count: number): boolean {
    const slot = this.#find(key)
    if (slot < 0) return false
    if (this.#slots[slot * 2] !== key) {
      if (this.#size >= this.#limit) return false
      this.#slots[slot * 2] = key
      this.#size += 1
    }
    this.#slots[slot * 2 + 1] = count
    return true
  }

  clear (): void {
    if (this.#size === 0) return
    this.#slots.fill(0)
    this.#size = 0
  }
}
