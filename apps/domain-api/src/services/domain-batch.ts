import { randomUUID } from 'node:crypto'
import type { Kysely } from 'kysely'
import { inTransaction } from '@impact/persistence'
import type { BatchCreateBody, BatchCreateResult, BatchItemResult, CreateDomainBody } from '@impact/schemas'
import {
  findBatch, insertBatchClaim, recordBatchProgress, takeOverBatch, type BatchClaim
} from '../db/batch.repository.ts'
import { describeScope, findExternalIdHolders, findReferences } from '../db/domain.repository.ts'
import { insertDomains, type NewDomain } from '../db/domain-insert.repository.ts'
import type { DB } from '../db/types.ts'
import { DomainBatchInProgressError, DomainExternalIdTakenError, DomainIdempotencyMismatchError } from '../errors.ts'
import { principalOf, type Caller } from './api-keys.ts'
import type { Clock } from './clock.ts'
import { fingerprint } from './fingerprint.ts'
import { withOrganisation } from './tenancy.ts'
import {
  externalIdScope, prepareRegistration, registrationReason, registrationReferences, scopeKey
} from './registration.ts'

/**
 * Registers up to a thousand domains in one request: each item is checked as POST /v1/domains checks it and
 * gets its own result, and the created ones are written a chunk at a time (one multi-row statement and its
 * history entries and versions per chunk, in one transaction). With an Idempotency-Key the run is recorded
 * chunk by chunk under a lease: a repeat gets the stored answer, and a run cut short (a crash) is resumed by
 * the next repeat once its lease has passed, from the first chunk it had not committed.
 */

export const BATCH_CHUNK = 500
const LEASE_MS = 60_000

interface Item { index: number, body: CreateDomainBody }
type Lease = Pick<BatchClaim, 'apiKeyId' | 'key' | 'token'>

/** A coded client error (what POST /v1/domains would answer) as an item's result; anything else fails the batch. */
function errorResult (index: number, error: unknown): BatchItemResult {
  const e = error as { statusCode?: number, code?: string, message?: string, details?: unknown }
  if (typeof e.statusCode !== 'number' || e.statusCode >= 500 || typeof e.code !== 'string') throw error
  const details = Array.isArray(e.details) ? { details: e.details as Array<{ field: string, message: string }> } : {}
  const body = { statusCode: e.statusCode, code: e.code, message: e.message ?? '', ...details }
  return { index, status: 'error', error: body }
}

const summary = (items: BatchItemResult[]): BatchCreateResult => {
  const created = items.filter((item) => item.status === 'created').length
  return { items, created, failed: items.length - created }
}

export function createBatchService ({ db, clock, idempotencyTtlMs, allowedClassMethods = new Set(['ixo']) }: {
  db: Kysely<DB>
  clock: Clock
  idempotencyTtlMs: number
  allowedClassMethods?: Set<string>
}) {
  /** Checks and writes one chunk; its results in input order. */
  async function runChunk (caller: Caller, items: Item[], lease: Lease | undefined, last: boolean) {
    const now = clock()
    const references = await findReferences(db, items.flatMap((item) => registrationReferences(item.body)))
    const results = new Map<number, BatchItemResult>()
    const drafts: Array<{ index: number, draft: NewDomain }> = []
    const twins = new Map<string, string>()
    const taken = (index: number, draft: NewDomain, holder: string) => results.set(index, errorResult(index,
      new DomainExternalIdTakenError(describeScope(externalIdScope(draft)), draft.externalId, holder)))

    for (const { index, body } of items) {
      try {
        drafts.push({ index, draft: prepareRegistration(body, { caller, now, references, allowedClassMethods }) })
      } catch (error) {
        results.set(index, errorResult(index, error))
      }
    }
    // The same external id twice in this chunk: the second is refused, naming the first.
    const fresh: typeof drafts = []
    for (const { index, draft } of drafts) {
      const key = draft.externalId != null ? scopeKey(externalIdScope(draft), draft.externalId) : undefined
      const twin = key !== undefined ? twins.get(key) : undefined
      if (twin !== undefined) {
        taken(index, draft, twin)
        continue
      }
      if (key !== undefined) twins.set(key, draft.did)
      fresh.push({ index, draft })
    }

    // Without a lease the chunk is one statement (and reads): its own transaction, no BEGIN/COMMIT round trips.
    const write = async (trx: Kysely<DB>) => {
      const rows = fresh.map(({ draft }) => ({ domain: draft, reason: registrationReason(draft) }))
      const inserted = rows.length > 0
        ? await insertDomains(trx, rows, idempotencyTtlMs, { skipConflicts: true })
        : new Set<string>()
      // Left out on a unique key: the external id was registered before (an earlier chunk, another request).
      const skipped = fresh.filter(({ draft }) => !inserted.has(draft.did))
      const holders = skipped.length > 0
        ? await findExternalIdHolders(trx, skipped.map(({ draft }) => draft.externalId ?? ''))
        : []
      const holderOf = new Map(holders.map((h) => [
        scopeKey({ organisation: h.organisation_did, type: h.type, class: h.class }, h.external_id ?? ''), h.did
      ]))
      for (const { index, draft } of fresh) {
        if (inserted.has(draft.did)) {
          results.set(index, { index, status: 'created', did: draft.did, externalId: draft.externalId ?? null })
          continue
        }
        const holder = draft.externalId != null
          ? holderOf.get(scopeKey(externalIdScope(draft), draft.externalId))
          : undefined
        if (holder === undefined) throw new Error(`could not register batch item ${index}`)
        taken(index, draft, holder)
      }
      const ordered = items.map(({ index }) => results.get(index)!)
      if (lease !== undefined) {
        const renewed = { ...lease, leaseUntil: new Date(clock().getTime() + LEASE_MS) }
        if (!await recordBatchProgress(trx, renewed, ordered, last)) throw new DomainBatchInProgressError()
      }
    }
    if (lease === undefined) await write(db)
    else await inTransaction(db, write)
    return items.map(({ index }) => results.get(index)!)
  }

  /** Claims the Idempotency-Key: the stored answer, or a lease and the results of chunks already committed. */
  async function claim (
    caller: Caller,
    key: string,
    body: BatchCreateBody
  ): Promise<{ replay: BatchItemResult[] } | { lease: Lease, done: BatchItemResult[] }> {
    const now = clock()
    const requested = fingerprint(body)
    const lease = { apiKeyId: principalOf(caller), key, token: randomUUID() }
    const leaseUntil = new Date(now.getTime() + LEASE_MS)
    for (let attempt = 0; attempt < 3; attempt++) {
      const claimed = { ...lease, fingerprint: requested, total: body.items.length, leaseUntil, createdAt: now }
      if (await insertBatchClaim(db, claimed, idempotencyTtlMs)) return { lease, done: [] }
      const held = await findBatch(db, lease.apiKeyId, key)
      if (held === undefined) continue // forgotten between the two statements: claim again
      if (held.fingerprint !== requested) throw new DomainIdempotencyMismatchError()
      if (held.complete) return { replay: held.results as BatchItemResult[] }
      if (held.lease_until > now) throw new DomainBatchInProgressError()
      const done = await takeOverBatch(db, { ...lease, leaseUntil }, held.lease_token)
      if (done === undefined) throw new DomainBatchInProgressError()
      return { lease, done: done as BatchItemResult[] }
    }
    throw new DomainBatchInProgressError()
  }

  return {
    async register (caller: Caller, body: BatchCreateBody, idempotencyKey?: string) {
      const items = body.items.map((item, index) => ({ index, body: withOrganisation(caller, item) }))
      let lease: Lease | undefined
      const results: BatchItemResult[] = []
      if (idempotencyKey !== undefined) {
        const claimed = await claim(caller, idempotencyKey, body)
        if ('replay' in claimed) return { result: summary(claimed.replay), replayed: true }
        lease = claimed.lease
        results.push(...claimed.done)
      }
      for (let start = results.length; start < items.length; start += BATCH_CHUNK) {
        const chunk = items.slice(start, start + BATCH_CHUNK)
        results.push(...await runChunk(caller, chunk, lease, start + BATCH_CHUNK >= items.length))
      }
      return { result: summary(results), replayed: false }
    }
  }
}

export type BatchService = ReturnType<typeof createBatchService>
