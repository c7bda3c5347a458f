import { sql, type Kysely } from 'kysely'
import type { DB, Language } from './types.ts'

export async function findLanguage (db: Kysely<DB>, phoneNumber: string): Promise<Language | undefined> {
  const row = await db
    .selectFrom('ussd_phone_preferences')
    .select('language')
    .where('phone_number', '=', phoneNumber)
    .executeTakeFirst()
  return row?.language
}

export async function saveLanguage (db: Kysely<DB>, phoneNumber: string, language: Language): Promise<void> {
  await db.insertInto('ussd_phone_preferences')
    .values({ phone_number: phoneNumber, language })
    .onConflict((oc) => oc.column('phone_number').doUpdateSet({ language, updated_at: sql<Date>`now()` }))
    .execute()
}
