import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto'
import type { FastifyBaseLogger } from 'fastify'
import type { Kysely } from 'kysely'
import type { SharedState } from '@impact/shared-state'
import type { UcanVerifier } from '@impact/ucan'
import { findApiKey, findApiKeyByHash, insertApiKey, listApiKeys, revokeApiKey } from '../db/api-key.repository.ts'
import { findAccountOrganisation } from '../db/tenancy.repository.ts'
import type { ApiKeyRow, DB } from '../db/types.ts'
import {
  DomainApiKeyInvalidError, DomainApiKeyNotFoundError, DomainApiKeyRevokedError, DomainOrganisationConflictError,
  DomainOrganisationForbiddenError, DomainUcanInvalidError, DomainUcanNotGrantedError, DomainUcanReplayedError,
  DomainUcanRevokedError
} from '../errors.ts'
import type { CreateApiKeyBody } from '../schemas/api-key.ts'
import type { Role } from '../schemas/role.ts'
import type { AccountService } from './accounts.ts'
import type { Clock } from './clock.ts'
import { checkOrganisation } from './organisations.ts'
import { decodeKeyset, toPage } from './pagination.ts'
import { toApiKey } from './records.ts'

export interface Caller {
  via: 'api-key' | 'ucan'
  /** Null for a UCAN caller. */
  keyId: string | null
  name: string
  /** For a key, those it names that its account holds. */
  roles: Role[]
  /** For a UCAN caller, the root of its chain. */
  account: string
  /** A UCAN invoker other than the account, else null. */
  service: string | null
  /** The organisation it acts in: its key's, else its account's; null for none (platform-wide if admin). */
  organisation: string | null
}

/** The scope of idempotency keys, votes and rate limits. */
export const principalOf = (caller: Caller): string => caller.keyId ?? caller.account

/** `domain/*` in a delegation covers the domain ones. */
export const ABILITIES = [
  'domain/create', 'domain/read', 'domain/update', 'domain/deactivate', 'verification/propose', 'verification/vote'
] as const
export type Ability = typeof ABILITIES[number]

/** 403; other refusals are 401. */
const NOT_GRANTED = new Set(['wrong_ability', 'unauthorized'])

export const BOOTSTRAP_KEY_ID = 'bootstrap'
const KEY_PREFIX = 'dk_'
const MAX_TOKEN_LENGTH = 512
const CACHE_MAX_ENTRIES = 10_000
const REVOKED_CHANNEL = 'api-key-revoked'
const USED_INVOCATION_PREFIX = 'ucan-used:'
// Replicas' clocks differ a little; the record outlives the token by this much on any of them.
const USED_INVOCATION_SKEW_MS = 60_000

// Keys are 256-bit random tokens: a slow salted hash would only cost time. An unsalted SHA-256 finds the key
// by a unique index, and the stored digest never lets anyone call the API.
const digest = (key: string) => createHash('sha256').update(key, 'utf8').digest()

export interface ApiKeyServiceOptions {
  db: Kysely<DB>
  state: SharedState
  clock: Clock
  /** 0: always ask the database. */
  cacheTtlMs: number
  bootstrap?: { key: string, account: string } | undefined
  log: FastifyBaseLogger
  accounts: AccountService
  verifier: UcanVerifier
}

interface KeyIdentity { keyId: string, name: string, keyRoles: Role[], account: string, organisation: string | null }

export function createApiKeyService (options: ApiKeyServiceOptions) {
  const { db, state, clock } = options
  const { accounts, verifier } = options
  const cache = new Map<string, { key: KeyIdentity, expiresAt: number }>()
  const bootstrapDigest = options.bootstrap !== undefined ? digest(options.bootstrap.key) : undefined
  // The configured admin: its role comes from configuration, not from grants.
  const bootstrapCaller: Caller | undefined = options.bootstrap !== undefined
    ? {
        via: 'api-key',
        keyId: BOOTSTRAP_KEY_ID,
        name: 'bootstrap admin (DOMAIN_API_ADMIN_KEY)',
        roles: ['admin'],
        account: options.bootstrap.account,
        service: null,
        organisation: null
      }
    : undefined
  let unsubscribe: (() => Promise<void>) | undefined

  const evict = (keyId: string) => {
    for (const [hash, entry] of cache) if (entry.key.keyId === keyId) cache.delete(hash)
  }
  const remember = (hash: string, key: KeyIdentity) => {
    if (options.cacheTtlMs <= 0) return
    if (cache.size >= CACHE_MAX_ENTRIES) cache.delete(cache.keys().next().value as string)
    cache.set(hash, { key, expiresAt: Date.now() + options.cacheTtlMs })
  }
  const toKey = (row: ApiKeyRow): KeyIdentity => ({
    keyId: row.id,
    name: row.name,
    keyRoles: row.roles as Role[],
    account: row.account,
    organisation: row.organisation_did
  })
  async function toCaller (key: KeyIdentity): Promise<Caller> {
    const profile = await accounts.profileOf(key.account)
    return {
      via: 'api-key',
      keyId: key.keyId,
      name: key.name,
      roles: key.keyRoles.filter((role) => profile.roles.includes(role)),
      account: key.account,
      service: null,
      organisation: key.organisation ?? profile.organisation
    }
  }

  /** A key an admin may see: any for a platform admin, those acting in its organisation for another. */
  async function keyInScope (caller: Caller, id: string): Promise<ApiKeyRow> {
    const row = await findApiKey(db, id)
    if (row === undefined) throw new DomainApiKeyNotFoundError(id)
    if (caller.organisation === null) return row
    const organisation = row.organisation_did ?? await findAccountOrganisation(db, row.account)
    if (organisation !== caller.organisation) throw new DomainApiKeyNotFoundError(id)
    return row
  }

  return {
    async authenticate (token: string): Promise<Caller> {
      if (token.length > MAX_TOKEN_LENGTH) throw new DomainApiKeyInvalidError()
      const presented = digest(token)
      if (
        bootstrapDigest !== undefined &&
        bootstrapCaller !== undefined &&
        timingSafeEqual(presented, bootstrapDigest)
      ) {
        return bootstrapCaller
      }
      const hash = presented.toString('hex')
      const cached = cache.get(hash)
      if (cached !== undefined && cached.expiresAt > Date.now()) return await toCaller(cached.key)
      const row = await findApiKeyByHash(db, hash)
      // The index found the row by digest; compare in constant time anyway (defence in depth).
      if (row === undefined || !timingSafeEqual(Buffer.from(row.key_hash, 'hex'), presented)) {
        throw new DomainApiKeyInvalidError()
      }
      if (row.revoked_at !== null) throw new DomainApiKeyRevokedError()
      const key = toKey(row)
      remember(hash, key)
      return await toCaller(key)
    },

    /** 401 for an unsound token, 403 for a sound one lacking the ability; the reason is logged, never the token. */
    async authenticateInvocation (token: string, ability: Ability, log: FastifyBaseLogger): Promise<Caller> {
      const verdict = await verifier.verifyAccountInvocation(token, ability)
      if (verdict.error !== undefined) {
        const { reason } = verdict.error
        log.info({ reason, ability }, 'UCAN invocation refused')
        if (NOT_GRANTED.has(reason)) throw new DomainUcanNotGrantedError(ability)
        throw reason === 'revoked' ? new DomainUcanRevokedError() : new DomainUcanInvalidError()
      }
      const { account, invoker, cid, expiration } = verdict.ok
      // A service acting for an account mints one invocation per call (ucan.md §9): a second use
      // is a replay. An account's own invocation may be reused until it expires, like an auth token.
      if (invoker !== account) {
        const ttlMs = expiration * 1000 - Date.now() + USED_INVOCATION_SKEW_MS
        const first = await state.set(`${USED_INVOCATION_PREFIX}${cid}`, randomUUID(), { ttlMs, ifAbsent: true })
        if (!first) {
          log.info({ reason: 'replayed', ability, cid }, 'UCAN invocation refused')
          throw new DomainUcanReplayedError()
        }
      }
      const profile = await accounts.profileOf(account)
      return {
        via: 'ucan',
        keyId: null,
        name: 'UCAN invocation',
        roles: profile.roles,
        account,
        service: invoker !== account ? invoker : null,
        organisation: profile.organisation
      }
    },

    /**
     * The secret is returned here once; only its digest is kept. The key acts in the organisation given, else its
     * account's, else the issuing admin's; an admin of an organisation issues keys of it only.
     */
    async issue (issuer: Caller, body: CreateApiKeyBody) {
      const { organisation: ofAccount } = await accounts.profileOf(body.account)
      const organisation = body.organisation ?? ofAccount ?? issuer.organisation
      // A key acts as its account: an organisation's admin mints them for its own accounts only.
      if (issuer.organisation !== null && (ofAccount !== issuer.organisation || organisation !== ofAccount)) {
        throw new DomainOrganisationForbiddenError(`An admin of organisation ${issuer.organisation} issues keys of ` +
          `its accounts only (${body.account} belongs to ${ofAccount ?? 'no organisation'}; put it in the ` +
          'organisation with PUT /v1/accounts/{did}/roles first)')
      }
      if (ofAccount !== null && organisation !== ofAccount) {
        throw new DomainOrganisationConflictError(`Account ${body.account} belongs to organisation ${ofAccount}: ` +
          'its keys act there')
      }
      if (body.organisation !== undefined && body.organisation !== ofAccount) {
        await checkOrganisation(db, body.organisation)
      }
      const key = KEY_PREFIX + randomBytes(32).toString('base64url')
      const row = await insertApiKey(db, {
        id: randomUUID(),
        name: body.name,
        prefix: key.slice(0, KEY_PREFIX.length + 6),
        key_hash: digest(key).toString('hex'),
        roles: body.roles,
        account: body.account,
        organisation_did: organisation,
        created_by: principalOf(issuer),
        created_at: clock()
      })
      const { createdBy: _createdBy, revokedAt: _revokedAt, ...record } = toApiKey(row)
      return { ...record, key }
    },

    /** Other replicas are told through Redis. */
    async revoke (revoker: Caller, id: string) {
      await keyInScope(revoker, id)
      const row = await revokeApiKey(db, id, principalOf(revoker), clock())
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

    async get (caller: Caller, id: string) {
      return toApiKey(await keyInScope(caller, id))
    },

    async list (caller: Caller, query: { limit: number, cursor?: string | undefined }) {
      const rows = await listApiKeys(db, decodeKeyset(query.cursor), query.limit + 1, caller.organisation)
      return toPage(rows, query.limit, toApiKey, (row) => [row.created_at.toISOString(), row.id])
    },

    describe (caller: Caller) {
      return {
        id: principalOf(caller),
        name: caller.name,
        roles: caller.roles,
        account: caller.account,
        organisation: caller.organisation
      }
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
