import type { Kysely } from 'kysely'
import type { SharedState } from '@impact/shared-state'
import { findLanguage, saveLanguage } from '../db/preferences.repository.ts'
import type { DB, Language } from '../db/types.ts'

const CACHE_TTL_MS = 24 * 60 * 60 * 1000
const DEFAULT_LANGUAGE: Language = 'en'
const key = (phoneNumber: string) => `lang:${phoneNumber}`
const isLanguage = (value: string | null): value is Language => value === 'en' || value === 'sw'

/**
 * Language per phone: PostgreSQL is the record, the shared state a read-through cache in front of
 * it (every replica sees a change at once), so a new session usually costs no database query.
 */
export function createPreferences (db: Kysely<DB>, state: SharedState) {
  return {
    async language (phoneNumber: string): Promise<Language> {
      const cached = await state.get(key(phoneNumber))
      if (isLanguage(cached)) return cached
      const language = (await findLanguage(db, phoneNumber)) ?? DEFAULT_LANGUAGE
      await state.set(key(phoneNumber), language, { ttlMs: CACHE_TTL_MS })
      return language
    },
    async save (phoneNumber: string, language: Language): Promise<void> {
      await saveLanguage(db, phoneNumber, language)
      await state.set(key(phoneNumber), language, { ttlMs: CACHE_TTL_MS })
    }
  }
}

export type Preferences = ReturnType<typeof createPreferences>
