import { randomInt } from 'node:crypto'

/** What the table needs of a value: its key. */
export interface Keyed { id: string }

const EMPTY = 0
const MIN_CAPACITY = 16

/** String equality by characters: a request's strings are slices and concatenations, which `===` compares through the runtime. */
export function sameChars (a: string, b: string): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a.charCodeAt(i) !== b.charCodeAt(i)) return false
  return true
}

/**
 * Values by string id in one open-addressed array of pairs: a tag (31 bits of a seeded hash of
 * the id, never 0) and the value, side by side. Why not a Map: with a busy replica's sessions
 * (hundreds of thousands), a Map lookup read a bucket, then an entry elsewhere in its table, then
 * the stored key string to compare it, each a likely cache miss, and only then the session; the
 * profile put that lookup first among a hop's costs (4.7% of the gateway's time, for a few hundred
 * instructions). Here a lookup reads one pair, then the value, whose id it checks while the hop
 * reads the value's other fields anyway. It also never hashes the request's id string with V8's
 * hash (which a slice of the request body computes afresh every hop).
 *
 * Linear probing with backward-shift deletion (no tombstones); at most half full, so probes stay
 * short. The seed is per table: nobody can pick ids that collide without knowing it.
 */
export class SessionTable<V extends Keyed> {
  #slots: Array<number | V> = []
  #mask = 0
  #size = 0
  readonly #seed = randomInt(2 ** 31)

  constructor () {
    this.#allocate(MIN_CAPACITY)
  }

  get size (): number {
    return this.#size
  }

  /** A 31-bit tag of the id, never EMPTY (FNV-1a over the UTF-16 units, then a final mix). */
  #tag (id: string): number {
    let hash = this.#seed ^ 0x811c9dc5
    for (let i = 0; i < id.length; i++) hash = Math.imul(hash ^ id.charCodeAt(i), 0x01000193)
    hash = Math.imul(hash ^ (hash >>> 16), 0x7feb352d)
    hash ^= hash >>> 15
    const tag = hash >>> 1
    return tag === EMPTY ? 1 : tag
  }

  /** The pair index holding `id`, or -1. */
  #find (id: string, tag: number): number {
    const slots = this.#slots
    for (let at = tag & this.#mask; ; at = (at + 1) & this.#mask) {
      const held = slots[at * 2]
      if (held === EMPTY) return -1
      if (held === tag && sameChars((slots[at * 2 + 1] as V).id, id)) return at
    }
  }

  get (id: string): V | undefined {
    const at = this.#find(id, this.#tag(id))
    return at < 0 ? undefined : this.#slots[at * 2 + 1] as V
  }

  /** Stores `value` under its id, replacing what was stored there. */
  set (value: V): void {
    const tag = this.#tag(value.id)
    const at = this.#find(value.id, tag)
    if (at >= 0) {
      this.#slots[at * 2 + 1] = value
      return
    }
    if ((this.#size + 1) * 2 > this.#mask + 1) this.#resize((this.#mask + 1) * 2)
    this.#insert(tag, value)
    this.#size += 1
  }

  /** True when a value was stored under `id`. */
  delete (id: string): boolean {
    const at = this.#find(id, this.#tag(id))
    if (at < 0) return false
    this.#remove(at)
    this.#size -= 1
    // A surge's capacity is given back once it has passed (at most an eighth full).
    if (this.#size * 8 < this.#mask + 1 && this.#mask + 1 > MIN_CAPACITY) this.#resize((this.#mask + 1) / 2)
    return true
  }

  /** Every value, in no particular order. The table must not change while this runs. */
  * values (): IterableIterator<V> {
    const slots = this.#slots
    for (let at = 0; at <= this.#mask; at++) if (slots[at * 2] !== EMPTY) yield slots[at * 2 + 1] as V
  }

  clear (): void {
    this.#allocate(MIN_CAPACITY)
    this.#size = 0
  }

  #allocate (capacity: number): void {
    this.#slots = new Array<number | V>(capacity * 2).fill(EMPTY)
    this.#mask = capacity - 1
  }

  #insert (tag: number, value: V): void {
    let at = tag & this.#mask
    while (this.#slots[at * 2] !== EMPTY) at = (at + 1) & this.#mask
    this.#slots[at * 2] = tag
    this.#slots[at * 2 + 1] = value
  }

  /** Empties pair `at` and moves later pairs of its run back, so every lookup still finds them. */
  #remove (at: number): void {
    const slots = this.#slots
    const mask = this.#mask
    let hole = at
    for (let next = (hole + 1) & mask; slots[next * 2] !== EMPTY; next = (next + 1) & mask) {
      const home = (slots[next * 2] as number) & mask
      // The pair at `next` may fill the hole unless its home lies cyclically in (hole, next].
      if (((next - home) & mask) >= ((next - hole) & mask)) {
        slots[hole * 2] = slots[next * 2] as number
        slots[hole * 2 + 1] = slots[next * 2 + 1] as V
        hole = next
      }
    }
    slots[hole * 2] = EMPTY
    slots[hole * 2 + 1] = EMPTY
  }

  #resize (capacity: number): void {
    const old = this.#slots
    this.#allocate(capacity)
    for (let at = 0; at < old.length; at += 2) if (old[at] !== EMPTY) this.#insert(old[at] as number, old[at + 1] as V)
  }
}
