import type { Kysely } from 'kysely'
import { LRUCache } from 'lru-cache'
import type { SharedState } from '@impact/shared-state'
import { findLanguage, saveLanguage } from '../db/preferences.repository.ts'
import type { DB, Language } from '../db/types.ts'

const DEFAULT_LANGUAGE: Language = 'en'
const SHARED_TTL_MS = 24 * 60 * 60 * 1000
const LOCAL_PHONES = 100_000
/** Without Redis, replicas on one database see each other's changes within this time. */
const LOCAL_TTL_MS = 60 * 60 * 1000
/** Cached for a phone that never chose: each programme then offers its own first language. */
const NONE = 'none'
type Cached = Language | typeof NONE
const isCached = (value: string | null): value is Cached => value === 'en' || value === 'sw' || value === NONE

interface LanguageCache {
  get: (phoneNumber: string) => Promise<Cached | undefined>
  set: (phoneNumber: string, language: Cached) => Promise<void>
}

function sharedCache (state: SharedState): LanguageCache {
  const key = (phoneNumber: string) => `lang:${phoneNumber}`
  return {
    get: async (phoneNumber) => {
      const cached = await state.get(key(phoneNumber))
      return isCached(cached) ? cached : undefined
    },
    set: async (phoneNumber, language) => { await state.set(key(phoneNumber), language, { ttlMs: SHARED_TTL_MS }) }
  }
}

/** Entries expire, so a change made through another replica is seen in time. */
function localCache (capacity: number, now: () => number): LanguageCache {
  // ttlResolution 0: read the clock on each lookup instead of caching it behind a timer.
  const cache = new LRUCache<string, Cached>({ max: capacity, ttl: LOCAL_TTL_MS, ttlResolution: 0, perf: { now } })
  return {
    get: async (phoneNumber) => cache.get(phoneNumber),
    set: async (phoneNumber, language) => { cache.set(phoneNumber, language) }
  }
}

export interface PreferencesOptions {
  localCapacity?: number
  now?: () => number
}

/** PostgreSQL is the record; the cache spares most new sessions a query. */
export function createPreferences (db: Kysely<DB>, state: SharedState, options: PreferencesOptions = {}) {
  const cache = state.kind === 'memory'
    ? localCache(options.localCapacity ?? LOCAL_PHONES, options.now ?? Date.now)
    : sharedCache(state)
  return {
    async language (phoneNumber: string, fallback: Language = DEFAULT_LANGUAGE): Promise<Language> {
      let cached = await cache.get(phoneNumber)
      if (cached === undefined) {
        cached = (await findLanguage(db, phoneNumber)) ?? NONE
        await cache.set(phoneNumber, cached)
      }
      return cached === NONE ? fallback : cached
    },
    async save (phoneNumber: string, language: Language): Promise<void> {
      await saveLanguage(db, phoneNumber, language)
      await cache.set(phoneNumber, language)
    }
  }
}

export type Preferences = ReturnType<typeof createPreferences>
