import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto'
import type { FastifyBaseLogger } from 'fastify'
import type { Kysely } from 'kysely'
import type { SharedState } from '@impact/shared-state'
import { findApiKey, findApiKeyByHash, insertApiKey, listApiKeys, revokeApiKey } from '../db/api-key.repository.ts'
import type { ApiKeyRow, DB } from '../db/types.ts'
import { DomainApiKeyInvalidError, DomainApiKeyNotFoundError, DomainApiKeyRevokedError } from '../errors.ts'
import type { CreateApiKeyBody } from '../schemas/api-key.ts'
import type { Role } from '../schemas/common.ts'
import type { Clock } from './clock.ts'
import { decodeKeyset, toPage } from './pagination.ts'
import { toApiKey } from './records.ts'

/** Who is calling: the identity behind a verified API key. */
export interface Caller { keyId: string, name: string, roles: Role[], account: string }

export const BOOTSTRAP_KEY_ID = 'bootstrap'
const KEY_PREFIX = 'dk_'
const MAX_TOKEN_LENGTH = 512
const CACHE_MAX_ENTRIES = 10_000
const REVOKED_CHANNEL = 'api-key-revoked'

/**
 * API keys are 256-bit random tokens, not passwords. A slow salted hash (scrypt, bcrypt) exists
 * to slow down guessing of low-entropy secrets; nobody can guess a 256-bit key, so it would buy
 * nothing and cost tens of milliseconds per request. An unsalted SHA-256 digest lets the database
 * find the key through a unique index, and the stored digest never lets anyone call the API.
 */
const digest = (key: string) => createHash('sha256').update(key, 'utf8').digest()

export interface ApiKeyServiceOptions {
  db: Kysely<DB>
  state: SharedState
  clock: Clock
  /** How long a verified key stays cached in memory (0: always ask the database). */
  cacheTtlMs: number
  bootstrap?: { key: string, account: string } | undefined
  log: FastifyBaseLogger
}

export function createApiKeyService (options: ApiKeyServiceOptions) {
  const { db, state, clock } = options
  const cache = new Map<string, { caller: Caller, expiresAt: number }>()
  const bootstrapDigest = options.bootstrap !== undefined ? digest(options.bootstrap.key) : undefined
  const bootstrapCaller: Caller | undefined = options.bootstrap !== undefined
    ? { keyId: BOOTSTRAP_KEY_ID, name: 'bootstrap admin (DOMAIN_API_ADMIN_KEY)', roles: ['admin'], account: options.bootstrap.account }
    : undefined
  let unsubscribe: (() => Promise<void>) | undefined

  const evict = (keyId: string) => {
    for (const [hash, entry] of cache) if (entry.caller.keyId === keyId) cache.delete(hash)
  }
  const remember = (hash: string, caller: Caller) => {
    if (options.cacheTtlMs <= 0) return
    if (cache.size >= CACHE_MAX_ENTRIES) cache.delete(cache.keys().next().value as string)
    cache.set(hash, { caller, expiresAt: Date.now() + options.cacheTtlMs })
  }
  const toCaller = (row: ApiKeyRow): Caller => ({ keyId: row.id, name: row.name, roles: row.roles as Role[], account: row.account })

  return {
    /** Resolves the caller behind a bearer token, or throws 401 (unknown or revoked key). */
    async authenticate (token: string): Promise<Caller> {
      if (token.length > MAX_TOKEN_LENGTH) throw new DomainApiKeyInvalidError()
      const presented = digest(token)
      if (bootstrapDigest !== undefined && bootstrapCaller !== undefined && timingSafeEqual(presented, bootstrapDigest)) return bootstrapCaller
      const hash = presented.toString('hex')
      const cached = cache.get(hash)
      if (cached !== undefined && cached.expiresAt > Date.now()) return cached.caller
      const row = await findApiKeyByHash(db, hash)
      // The index found the row by digest; compare in constant time anyway (defence in depth).
      if (row === undefined || !timingSafeEqual(Buffer.from(row.key_hash, 'hex'), presented)) throw new DomainApiKeyInvalidError()
      if (row.revoked_at !== null) throw new DomainApiKeyRevokedError()
      const caller = toCaller(row)
      remember(hash, caller)
      return caller
    },

    /** Issues a key; the secret is returned here once and only its digest is kept. */
    async issue (issuer: Caller, body: CreateApiKeyBody) {
      const key = KEY_PREFIX + randomBytes(32).toString('base64url')
      const row = await insertApiKey(db, {
        id: randomUUID(),
        name: body.name,
        prefix: key.slice(0, KEY_PREFIX.length + 6),
        key_hash: digest(key).toString('hex'),
        roles: body.roles,
        account: body.account ?? issuer.account,
        created_by: issuer.keyId,
        created_at: clock()
      })
      const { createdBy: _createdBy, revokedAt: _revokedAt, ...record } = toApiKey(row)
      return { ...record, key }
    },

    /** Revokes a key at once on every replica (the cache is evicted here and, through Redis, elsewhere). */
    async revoke (revoker: Caller, id: string) {
      const row = await revokeApiKey(db, id, revoker.keyId, clock())
      if (row === undefined) throw new DomainApiKeyNotFoundError(id)
      evict(id)
      try {
        await state.publish(REVOKED_CHANNEL, id)
      } catch (err) {
        // The revocation is committed; other replicas drop their cached copy within the cache TTL.
        options.log.warn({ err, keyId: id }, 'could not broadcast an API key revocation')
      }
      return toApiKey(row)
    },

    async get (id: string) {
      const row = await findApiKey(db, id)
      if (row === undefined) throw new DomainApiKeyNotFoundError(id)
      return toApiKey(row)
    },

    async list (query: { limit: number, cursor?: string | undefined }) {
      const rows = await listApiKeys(db, decodeKeyset(query.cursor), query.limit + 1)
      return toPage(rows, query.limit, toApiKey, (row) => [row.created_at.toISOString(), row.id])
    },

    describe (caller: Caller) {
      return { id: caller.keyId, name: caller.name, roles: caller.roles, account: caller.account }
    },

    async start () {
      unsubscribe = await state.subscribe(REVOKED_CHANNEL, evict)
    },

    async close () {
      await unsubscribe?.()
      cache.clear()
    }
  }
}

export type ApiKeyService = ReturnType<typeof createApiKeyService>
