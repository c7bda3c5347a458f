import type { Kysely } from 'kysely'
import { decodeCursor, encodeCursor } from '@impact/schemas'
import { readFeed, type FeedPosition, type FeedRow } from '../db/feed.repository.ts'
import type { DB } from '../db/types.ts'
import { DomainInvalidCursorError } from '../errors.ts'
import type { EventFeedQuery, EventType, FeedEvent } from '../schemas/event.ts'
import { toEvent } from './records.ts'

const TAG = 'feed'
const XID8_MAX = 2n ** 64n - 1n
const BIGINT_MAX = 2n ** 63n - 1n

const inRange = (value: unknown, max: bigint): value is string =>
  typeof value === 'string' && /^[0-9]{1,20}$/.test(value) && BigInt(value) <= max

export const encodeFeedCursor = (position: FeedPosition): string => encodeCursor([TAG, position.xid, position.id])

/** A feed cursor's position; cursors of other listings and tampered ones are the client's error. */
export function decodeFeedCursor (cursor: string | undefined): FeedPosition | undefined {
  if (cursor === undefined) return undefined
  const [tag, xid, id, ...rest] = decodeCursor(cursor) ?? []
  if (tag !== TAG || rest.length > 0 || !inRange(xid, XID8_MAX) || !inRange(id, BIGINT_MAX)) {
    throw new DomainInvalidCursorError()
  }
  return { xid, id }
}

export const toFeedEvent = (row: FeedRow): FeedEvent => ({ ...toEvent(row), domainDid: row.domain_did })

export const positionOf = (row: FeedRow): FeedPosition => ({ xid: row.xid, id: row.id })

/** The durable change feed over the outbox (`domain_events`): ordered, resumable, gap-safe. */
export function createEventFeed ({ db }: { db: Kysely<DB> }) {
  return {
    async read (query: EventFeedQuery) {
      const after = decodeFeedCursor(query.after)
      const types = query.types !== undefined ? [...new Set(query.types.split(','))] as EventType[] : undefined
      const rows = await readFeed(db, after, types, query.limit + 1)
      const shown = rows.slice(0, query.limit)
      const last = shown.at(-1)
      return {
        items: shown.map(toFeedEvent),
        nextCursor: encodeFeedCursor(last !== undefined ? positionOf(last) : after ?? { xid: '0', id: '0' }),
        hasMore: rows.length > query.limit
      }
    }
  }
}

export type EventFeed = ReturnType<typeof createEventFeed>
