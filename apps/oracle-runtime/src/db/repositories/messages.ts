import { randomUUID } from 'node:crypto'
import type { MessageDto, ToolCallRecord } from '@impact/schemas'
import type { Kysely, Selectable } from 'kysely'
import { isForeignKeyViolation } from '@impact/persistence'
import type { DB, MessageTable } from '../types.ts'

export type StoredMessage = MessageDto & { seq: number, requestId: string }

const toMessage = (row: Selectable<MessageTable>): StoredMessage => ({
  seq: Number(row.seq),
  requestId: row.request_id,
  id: row.id,
  type: row.role,
  content: row.content,
  createdAt: new Date(row.created_at).toISOString(),
  ...(row.tool_calls !== null && row.tool_calls.length > 0 ? { toolCalls: row.tool_calls } : {}),
  ...(row.reasoning !== null ? { reasoning: row.reasoning, isComplete: true } : {}),
  ...(row.attachments !== null ? { attachments: row.attachments } : {}),
  ...(row.metadata !== null ? { metadata: row.metadata } : {})
})

export const toDto = ({ seq: _seq, requestId: _requestId, ...dto }: StoredMessage): MessageDto => dto

export interface NewMessage {
  sessionId: string
  requestId: string
  role: 'human' | 'ai'
  content: string
  toolCalls?: ToolCallRecord[]
  reasoning?: string
  attachments?: unknown[]
  metadata?: Record<string, unknown>
}

const json = (value: unknown) => (value === undefined ? null : JSON.stringify(value))

/** Stores a message; undefined when its session no longer exists. */
export async function insertMessage (db: Kysely<DB>, message: NewMessage): Promise<StoredMessage | undefined> {
  try {
    const row = await db.insertInto('oracle_messages').values({
      id: `m_${randomUUID()}`,
      session_id: message.sessionId,
      request_id: message.requestId,
      role: message.role,
      content: message.content,
      tool_calls: json(message.toolCalls),
      reasoning: message.reasoning ?? null,
      attachments: json(message.attachments),
      metadata: json(message.metadata)
    }).returningAll().executeTakeFirstOrThrow()
    return toMessage(row)
  } catch (error) {
    // The session row went away: it was deleted while its turn ran.
    if (isForeignKeyViolation(error)) return undefined
    throw error
  }
}

/** The newest `limit` messages of a session, oldest first (the model's context and the legacy history). */
export async function recentMessages (db: Kysely<DB>, sessionId: string, limit: number): Promise<StoredMessage[]> {
  const rows = await db.selectFrom('oracle_messages').selectAll().where('session_id', '=', sessionId)
    .orderBy('seq', 'desc').limit(limit).execute()
  return rows.reverse().map(toMessage)
}

export interface HistoryPage {
  messages: StoredMessage[]
  prevCursor: number | null
  nextCursor: number | null
  hasOlder: boolean
  hasNewer: boolean
}

/**
 * A page of whole turns (a human message and everything up to the next one), keyed by the seq of
 * the turn's human message: newest `limit` turns, or those before/after a cursor turn.
 */
export async function historyPage (
  db: Kysely<DB>,
  sessionId: string,
  query: { limit: number, before?: number, after?: number }
): Promise<HistoryPage> {
  const humanTurns = () =>
    db.selectFrom('oracle_messages').select('seq').where('session_id', '=', sessionId).where('role', '=', 'human')
  let turns = humanTurns()
  if (query.before !== undefined) turns = turns.where('seq', '<', query.before)
  if (query.after !== undefined) turns = turns.where('seq', '>', query.after)
  const ascending = query.after !== undefined
  const picked = (await turns.orderBy('seq', ascending ? 'asc' : 'desc').limit(query.limit).execute())
    .map((r) => Number(r.seq))
  if (picked.length === 0) {
    const anchor = query.after ?? query.before ?? null
    return { messages: [], prevCursor: query.before ?? null, nextCursor: anchor, hasOlder: false, hasNewer: false }
  }
  const first = Math.min(...picked)
  const last = Math.max(...picked)
  const [after, before] = await Promise.all([
    humanTurns().where('seq', '>', last).orderBy('seq', 'asc').limit(1).executeTakeFirst(),
    humanTurns().where('seq', '<', first).limit(1).executeTakeFirst()
  ])
  let rows = db.selectFrom('oracle_messages').selectAll().where('session_id', '=', sessionId).where('seq', '>=', first)
  if (after !== undefined) rows = rows.where('seq', '<', Number(after.seq))
  const messages = (await rows.orderBy('seq', 'asc').execute()).map(toMessage)
  return {
    messages,
    prevCursor: first,
    nextCursor: last,
    hasOlder: before !== undefined,
    hasNewer: after !== undefined
  }
}
