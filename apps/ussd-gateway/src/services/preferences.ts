import type { Kysely } from 'kysely'
import { LRUCache } from 'lru-cache'
import type { SharedState } from '@impact/shared-state'
import { findLanguage, saveLanguage } from '../db/preferences.repository.ts'
import type { DB, Language } from '../db/types.ts'

const DEFAULT_LANGUAGE: Language = 'en'
/** How long the shared state (Redis) keeps a phone's language. */
const SHARED_TTL_MS = 24 * 60 * 60 * 1000
/** Phones whose language one process keeps without Redis. */
const LOCAL_PHONES = 100_000
/** Without Redis, replicas on one database see each other's changes within this time. */
const LOCAL_TTL_MS = 60 * 60 * 1000
const isLanguage = (value: string | null): value is Language => value === 'en' || value === 'sw'

interface LanguageCache {
  get: (phoneNumber: string) => Promise<Language | undefined>
  set: (phoneNumber: string, language: Language) => Promise<void>
}

/** With Redis: every replica reads and writes the same entry, so a change is seen at once. */
function sharedCache (state: SharedState): LanguageCache {
  const key = (phoneNumber: string) => `lang:${phoneNumber}`
  return {
    get: async (phoneNumber) => {
      const cached = await state.get(key(phoneNumber))
      return isLanguage(cached) ? cached : undefined
    },
    set: async (phoneNumber, language) => { await state.set(key(phoneNumber), language, { ttlMs: SHARED_TTL_MS }) }
  }
}

/** In-process: a bounded LRU whose entries expire, so a change made through another replica is seen in time. */
function localCache (capacity: number, now: () => number): LanguageCache {
  // ttlResolution 0: read the clock on each lookup instead of caching it behind a timer.
  const cache = new LRUCache<string, Language>({ max: capacity, ttl: LOCAL_TTL_MS, ttlResolution: 0, perf: { now } })
  return {
    get: async (phoneNumber) => cache.get(phoneNumber),
    set: async (phoneNumber, language) => { cache.set(phoneNumber, language) }
  }
}

export interface PreferencesOptions {
  /** Phones kept in-process (tests shrink it). */
  localCapacity?: number
  /** The clock of the in-process cache's expiry (tests move it). */
  now?: () => number
}

/** Language per phone: PostgreSQL is the record; a read-through cache spares most new sessions a query. */
export function createPreferences (db: Kysely<DB>, state: SharedState, options: PreferencesOptions = {}) {
  const cache = state.kind === 'memory'
    ? localCache(options.localCapacity ?? LOCAL_PHONES, options.now ?? Date.now)
    : sharedCache(state)
  return {
    async language (phoneNumber: string): Promise<Language> {
      const cached = await cache.get(phoneNumber)
      if (cached !== undefined) return cached
      const language = (await findLanguage(db, phoneNumber)) ?? DEFAULT_LANGUAGE
      await cache.set(phoneNumber, language)
      return language
    },
    async save (phoneNumber: string, language: Language): Promise<void> {
      await saveLanguage(db, phoneNumber, language)
      await cache.set(phoneNumber, language)
    }
  }
}

export type Preferences = ReturnType<typeof createPreferences>
