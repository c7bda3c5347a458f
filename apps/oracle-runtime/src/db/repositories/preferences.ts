import type { Kysely } from 'kysely'
import { sql } from 'kysely'
import type { DB } from '../types.ts'

export async function findPreferences (db: Kysely<DB>, did: string): Promise<Record<string, unknown> | undefined> {
  const row = await db
    .selectFrom('oracle_user_preferences')
    .select('preferences')
    .where('did', '=', did)
    .executeTakeFirst()
  return row?.preferences
}

/** Merges `changes` into the stored record in one statement (concurrent writers never lose fields). */
export async function mergePreferences (
  db: Kysely<DB>,
  did: string,
  changes: Record<string, unknown>
): Promise<Record<string, unknown>> {
  const json = JSON.stringify(changes)
  const row = await db.insertInto('oracle_user_preferences')
    .values({ did, preferences: json, updated_at: new Date() })
    .onConflict((oc) => oc.column('did').doUpdateSet({
      preferences: sql`oracle_user_preferences.preferences || excluded.preferences`,
      updated_at: new Date()
    }))
    .returning('preferences')
    .executeTakeFirstOrThrow()
  return row.preferences
}
