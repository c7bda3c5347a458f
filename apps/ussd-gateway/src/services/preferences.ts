import type { Kysely } from 'kysely'
import type { SharedState } from '@impact/shared-state'
import { findLanguage, saveLanguage } from '../db/preferences.repository.ts'
import type { DB, Language } from '../db/types.ts'
import { NumberCounts, phoneDigits } from './counts.ts'
import { Generations } from './generations.ts'
import type { Maybe } from './maybe.ts'

const DEFAULT_LANGUAGE: Language = 'en'
/** How long the shared state (Redis) keeps a phone's language. */
const SHARED_TTL_MS = 24 * 60 * 60 * 1000
/** Phones whose language one process keeps without Redis (a fixed 4 MB of tables). */
const LOCAL_PHONES = 100_000
/** Without Redis a replica drops what it kept after one to two of these (see localCache). */
const LOCAL_ROTATE_MS = 60 * 60 * 1000
/** Cached codes: a language's index here plus one (0 is "not kept"). */
const LANGUAGES: readonly Language[] = ['en', 'sw']
const isLanguage = (value: string | null): value is Language => LANGUAGES.includes(value as Language)

interface LanguageCache {
  get: (phoneNumber: string) => Maybe<Language | undefined>
  set: (phoneNumber: string, language: Language) => Maybe<void>
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

/**
 * In-process: a bounded table keyed by the number's digits, which allocates nothing per phone. The
 * shared in-memory state kept an entry of about 180 bytes per phone for a day, every phone that
 * ever dialled, each beside a live session in the heap. The generations also rotate every
 * LOCAL_ROTATE_MS, so replicas on one PostgreSQL without Redis see each other's changes within two.
 */
function localCache (capacity: number, now: () => number): LanguageCache {
  const table = new Generations(capacity, (limit) => new NumberCounts(limit))
  let rotateAt = now() + LOCAL_ROTATE_MS
  const rotateWhenDue = () => {
    const at = now()
    if (at < rotateAt) return
    table.rotate()
    rotateAt = at + LOCAL_ROTATE_MS
  }
  const keyOf = (phoneNumber: string) => {
    const key = phoneDigits(phoneNumber)
    return Number.isSafeInteger(key) && key > 0 ? key : undefined
  }
  return {
    get (phoneNumber) {
      rotateWhenDue()
      const key = keyOf(phoneNumber)
      return key === undefined ? undefined : LANGUAGES[table.get(key) - 1]
    },
    set (phoneNumber, language) {
      rotateWhenDue()
      const key = keyOf(phoneNumber)
      if (key !== undefined) table.set(key, LANGUAGES.indexOf(language) + 1)
    }
  }
}

export interface PreferencesOptions {
  /** Phones kept in-process (tests shrink it). */
  localCapacity?: number
  /** The clock of the in-process rotation (tests move it). */
  now?: () => number
}

/**
 * Language per phone: PostgreSQL is the record, with a read-through cache in front of it (Redis when
 * configured, else a bounded table in this process), so a new session usually costs no database query.
 */
export function createPreferences (db: Kysely<DB>, state: SharedState, options: PreferencesOptions = {}) {
  const cache = state.kind === 'memory' ? localCache(options.localCapacity ?? LOCAL_PHONES, options.now ?? Date.now) : sharedCache(state)
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
