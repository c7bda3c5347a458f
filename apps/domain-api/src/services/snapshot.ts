import { createHash } from 'node:crypto'
import type { DomainDocumentFields } from '@impact/schemas'
import type { DomainRow } from '../db/types.ts'
import { documentFieldsOf } from './did-document.ts'
import { canonicalJson } from './fingerprint.ts'

/**
 * What governance reviews and approves, defined once: a verification covers exactly this content, a proposal
 * records its hash when it opens, and any change to it after verification makes the domain `changed`.
 */

export const REVIEWED_FIELDS = [
  'type', 'class', 'controllers', 'metadata', 'validFrom', 'validUntil', 'deviceKeys', 'services', 'alsoKnownAs',
  'links'
] as const
export type ReviewedField = typeof REVIEWED_FIELDS[number]
export type ReviewedContent = Partial<Record<ReviewedField, unknown>>

export type ContentSource = Pick<DomainRow, 'type' | 'class' | 'controllers' | 'valid_from' | 'valid_until'> & {
  metadata: unknown
  document: unknown
}

const iso = (date: Date | null) => (date === null ? null : date.toISOString())

/** The reviewed content of a domain row (or of a row as a write would leave it). */
export function reviewedContent (row: ContentSource): ReviewedContent {
  return {
    type: row.type,
    class: row.class,
    controllers: row.controllers,
    metadata: row.metadata,
    validFrom: iso(row.valid_from),
    validUntil: iso(row.valid_until),
    // Document fields a domain does not have stay out, as canonical JSON leaves out what is undefined.
    ...documentFieldsOf(row.document as DomainDocumentFields)
  }
}

/** sha256:<hex> of the content's canonical JSON (object keys sorted at every level, arrays in order). */
export const hashContent = (content: ReviewedContent) =>
  `sha256:${createHash('sha256').update(canonicalJson(content)).digest('hex')}`

export const contentHashOf = (row: ContentSource) => hashContent(reviewedContent(row))

/** The reviewed fields whose value differs between two contents, with both values (null when absent). */
export function contentChanges (before: ReviewedContent, after: ReviewedContent) {
  const changes: Partial<Record<ReviewedField, { before: unknown, after: unknown }>> = {}
  for (const field of REVIEWED_FIELDS) {
    if (canonicalJson(before[field]) !== canonicalJson(after[field])) {
      changes[field] = { before: before[field] ?? null, after: after[field] ?? null }
    }
  }
  return changes
}

/** A collection's hash: of its members' [did, hash] pairs in DID order, so one hash names the whole set. */
export const hashMembers = (members: Array<{ did: string, hash: string }>) => {
  const pairs = members.map((m) => [m.did, m.hash]).sort(([a], [b]) => (a! < b! ? -1 : a! > b! ? 1 : 0))
  return `sha256:${createHash('sha256').update(canonicalJson(pairs)).digest('hex')}`
}
