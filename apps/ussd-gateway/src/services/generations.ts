import type { Counts } from './counts.ts'

/**
 * A table of at most `capacity` keys with numeric values (0 meaning absent), over two generations
 * of `capacity / 2` keys each (counts.ts holds the tables): when the recent one is full it becomes
 * the older one and the older is emptied, so the keys in use stay while a flood of new keys passes
 * through. A key found in the older generation moves to the recent one when it is set again.
 * Memory is bounded and allocated up front; as with any bounded cache, a flood can drop a key.
 */
export class Generations<K> {
  #recent: Counts<K>
  #older: Counts<K>

  /** `table` makes one generation's table of at most `limit` keys. */
  constructor (capacity: number, table: (limit: number) => Counts<K>) {
    const limit = Math.max(1, Math.floor(capacity / 2))
    this.#recent = table(limit)
    this.#older = table(limit)
  }

  get (key: K): number {
    const recent = this.#recent.get(key)
    return recent !== 0 ? recent : this.#older.get(key)
  }

  set (key: K, value: number): void {
    if (this.#recent.set(key, value)) return
    this.rotate()
    this.#recent.set(key, value)
  }

  /** The recent generation becomes the older one; the older one's keys are dropped. */
  rotate (): void {
    const older = this.#older
    this.#older = this.#recent
    this.#recent = older
    this.#recent.clear()
  }

  clear (): void {
    this.#recent.clear()
    this.#older.clear()
  }
}
