import { Type, type Static, type TSchema } from '@sinclair/typebox'
import { Nullable } from './common.ts'

export const MAX_PAGE_LIMIT = 100

/** Offset pagination, as the oracle's `GET /sessions?limit&offset` uses it. */
export const OffsetPageQuerySchema = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: MAX_PAGE_LIMIT, default: 20 }),
  offset: Type.Integer({ minimum: 0, default: 0 })
})
export type OffsetPageQuery = Static<typeof OffsetPageQuerySchema>

/** Cursor pagination: an opaque keyset position, so a page stays stable while rows are inserted ahead of it. */
export const CursorPageQuerySchema = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: MAX_PAGE_LIMIT, default: 20 }),
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 512 }))
})
export type CursorPageQuery = Static<typeof CursorPageQuerySchema>

export const CursorPageSchema = <T extends TSchema>(item: T) => Type.Object({
  items: Type.Array(item),
  nextCursor: Nullable(Type.String())
})

/** Encodes a keyset position (e.g. `[createdAt, id]`) as an opaque URL-safe cursor. */
export function encodeCursor (position: unknown[]): string {
  return Buffer.from(JSON.stringify(position)).toString('base64url')
}

/** Decodes a cursor made by {@link encodeCursor}; `undefined` for anything malformed. */
export function decodeCursor (cursor: string): unknown[] | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'))
    return Array.isArray(value) ? value : undefined
  } catch {
    return undefined
  }
}
