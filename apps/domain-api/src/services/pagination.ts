import { decodeCursor, encodeCursor } from '@impact/schemas'
import { DomainInvalidCursorError } from '../errors.ts'

/** A malformed cursor is the client's error, not ours. */
export function decodeKeyset (cursor: string | undefined): [Date, string] | undefined {
  if (cursor === undefined) return undefined
  const position = decodeCursor(cursor)
  if (position?.length !== 2) throw new DomainInvalidCursorError()
  return keysetOf(position)
}

/** A cursor fits only the order that issued it. */
export function decodeDomainCursor (
  cursor: string | undefined,
  position: (domain: { createdAt: string, updatedAt: string, did: string }) => unknown[]
): [Date, string] | undefined {
  if (cursor === undefined) return undefined
  const decoded = decodeCursor(cursor)
  const expected = position({ createdAt: '', updatedAt: '', did: '' }).slice(2)
  if (decoded === undefined || decoded.length !== 2 + expected.length || decoded[2] !== expected[0]) {
    throw new DomainInvalidCursorError()
  }
  return keysetOf(decoded)
}

function keysetOf (position: unknown[]): [Date, string] {
  const [at, id] = position
  const date = typeof at === 'string' ? new Date(at) : undefined
  if (date === undefined || Number.isNaN(date.getTime()) || typeof id !== 'string' || id.length > 512) {
    throw new DomainInvalidCursorError()
  }
  return [date, id]
}

export function decodeSequence (cursor: string | undefined): string | undefined {
  if (cursor === undefined) return undefined
  const position = decodeCursor(cursor)
  const sequence = position?.[0]
  if (position?.length !== 1 || typeof sequence !== 'string' || !/^[0-9]{1,19}$/.test(sequence)) {
    throw new DomainInvalidCursorError()
  }
  return sequence
}

const ENTITY_DID = /^did:ixo:entity:[0-9a-f]{32}$/

/** A cursor over DIDs in order, tagged with its listing so one listing's cursor fits no other. */
export function decodeDidCursor (cursor: string | undefined, tag: string): string | undefined {
  if (cursor === undefined) return undefined
  const [given, did, ...rest] = decodeCursor(cursor) ?? []
  if (given !== tag || rest.length > 0 || typeof did !== 'string' || !ENTITY_DID.test(did)) {
    throw new DomainInvalidCursorError()
  }
  return did
}

/** Fetch `limit + 1` rows: the extra row only says that another page exists. */
export function toPage<R, T> (rows: R[], limit: number, map: (row: R) => T, position: (row: R) => unknown[]) {
  const shown = rows.slice(0, limit)
  const last = shown.at(-1)
  return {
    items: shown.map(map),
    nextCursor: rows.length > limit && last !== undefined ? encodeCursor(position(last)) : null
  }
}
