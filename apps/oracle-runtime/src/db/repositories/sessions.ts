import { randomUUID } from 'node:crypto'
import type { ChatSession } from '@impact/schemas'
import { sql, type Kysely, type Selectable } from 'kysely'
import type { DB, SessionTable } from '../types.ts'

const toSession = (row: Selectable<SessionTable>, oracleDid: string): ChatSession => ({
  sessionId: row.id,
  title: row.title,
  createdAt: new Date(row.created_at).toISOString(),
  lastUpdatedAt: new Date(row.last_updated_at).toISOString(),
  oracleName: row.oracle_name,
  oracleDid
})

export const NEW_SESSION_TITLE = 'New chat'

export async function createSession (
  db: Kysely<DB>,
  input: { did: string, oracleName: string, oracleDid: string }
): Promise<ChatSession> {
  const row = await db
    .insertInto('oracle_sessions')
    .values({ id: `s_${randomUUID()}`, did: input.did, title: NEW_SESSION_TITLE, oracle_name: input.oracleName })
    .returningAll()
    .executeTakeFirstOrThrow()
  return toSession(row, input.oracleDid)
}

/** The caller's session, or undefined: another user's session is indistinguishable from a missing one. */
export async function findSession (
  db: Kysely<DB>,
  did: string,
  sessionId: string,
  oracleDid: string
): Promise<ChatSession | undefined> {
  const row = await db
    .selectFrom('oracle_sessions')
    .selectAll()
    .where('id', '=', sessionId)
    .where('did', '=', did)
    .executeTakeFirst()
  return row === undefined ? undefined : toSession(row, oracleDid)
}

export async function listSessions (
  db: Kysely<DB>,
  did: string,
  page: { limit: number, offset: number },
  oracleDid: string
) {
  const [rows, count] = await Promise.all([
    db.selectFrom('oracle_sessions').selectAll().where('did', '=', did)
      .orderBy('activity', 'desc')
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
    db
      .selectFrom('oracle_sessions')
      .select((eb) => eb.fn.countAll().as('total'))
      .where('did', '=', did)
      .executeTakeFirstOrThrow()
  ])
  return { sessions: rows.map((r) => toSession(r, oracleDid)), total: Number(count.total) }
}

export async function deleteSession (db: Kysely<DB>, did: string, sessionId: string): Promise<boolean> {
  const result = await db
    .deleteFrom('oracle_sessions')
    .where('id', '=', sessionId)
    .where('did', '=', did)
    .executeTakeFirst()
  return result.numDeletedRows > 0n
}

/** Marks activity; the first message of a fresh session also becomes its title. */
export async function touchSession (db: Kysely<DB>, sessionId: string, firstMessage?: string): Promise<void> {
  const title = firstMessage?.replace(/\s+/g, ' ').trim().slice(0, 80)
  await db.updateTable('oracle_sessions')
    .set((eb) => ({
      last_updated_at: new Date(),
      activity: sql<string>`nextval('oracle_sessions_activity')`,
      ...(title !== undefined && title !== ''
        ? { title: eb.case().when('title', '=', NEW_SESSION_TITLE).then(title).else(eb.ref('title')).end() }
        : {})
    }))
    .where('id', '=', sessionId)
    .execute()
}
