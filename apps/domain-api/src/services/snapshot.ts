import { createHash } from 'node:crypto'
import { PRIVATE_METADATA_KEY, type DomainDocumentFields } from '@impact/schemas'
import type { DomainRow } from '../db/types.ts'
import { documentFieldsOf } from './did-document.ts'
import { canonicalJson } from './fingerprint.ts'

// Defined once: a verification covers exactly this content, and any later change makes the domain `changed`.

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
  const changes: Partial<Record<ReviewedField, { before: unknown, after: unknown, privateChanged?: true }>> = {}
  for (const field of REVIEWED_FIELDS) {
    if (canonicalJson(before[field]) === canonicalJson(after[field])) continue
    if (field !== 'metadata') {
      changes[field] = { before: before[field] ?? null, after: after[field] ?? null }
      continue
    }
    // History reaches every reader, the feed and webhooks: private metadata shows only that it changed.
    const [was, is] = [publicMetadata(before.metadata), publicMetadata(after.metadata)]
    const privateChanged = privateOf(before) !== privateOf(after)
    changes.metadata = { before: was, after: is, ...(privateChanged ? { privateChanged: true as const } : {}) }
  }
  return changes
}

const privateOf = (content: ReviewedContent) =>
  canonicalJson((content.metadata as Record<string, unknown> | undefined)?.[PRIVATE_METADATA_KEY])

function publicMetadata (metadata: unknown): unknown {
  if (metadata === null || typeof metadata !== 'object') return metadata ?? null
  const { [PRIVATE_METADATA_KEY]: _private, ...rest } = metadata as Record<string, unknown>
  return rest
}

/** Content as every reader may see it: the hash covers private metadata, which reviewers read on the domain. */
export const publicContent = (content: ReviewedContent): ReviewedContent =>
  content.metadata === undefined ? content : { ...content, metadata: publicMetadata(content.metadata) }

/** A collection's hash: of its members' [did, hash] pairs in DID order, so one hash names the whole set. */
export const hashMembers = (members: Array<{ did: string, hash: string }>) => {
  const pairs = members.map((m) => [m.did, m.hash]).sort(([a], [b]) => (a! < b! ? -1 : a! > b! ? 1 : 0))
  return `sha256:${createHash('sha256').update(canonicalJson(pairs)).digest('hex')}`
}
