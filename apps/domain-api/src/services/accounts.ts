import type { FastifyBaseLogger } from 'fastify'
import type { Kysely } from 'kysely'
import type { SharedState } from '@impact/shared-state'
import { listAccountRoles, replaceAccountRoles } from '../db/account-role.repository.ts'
import type { DB } from '../db/types.ts'
import { ROLES, type Role } from '../schemas/role.ts'
import type { Clock } from './clock.ts'

const CHANGED_CHANNEL = 'account-roles-changed'
const CACHE_MAX_ENTRIES = 10_000
const ORDER = new Map<string, number>(ROLES.map((role, i) => [role, i]))

export interface AccountServiceOptions {
  db: Kysely<DB>
  state: SharedState
  clock: Clock
  /** How long an account's roles stay cached (0: always ask the database); changes evict at once. */
  cacheTtlMs: number
  log: FastifyBaseLogger
}

/**
 * Roles belong to accounts (DIDs), granted by an admin. An API key acts with the roles it names
 * that its account also holds; a UCAN caller with its account's roles. A change evicts the
 * cached roles of the account on every replica (through Redis when shared).
 */
export function createAccountService (options: AccountServiceOptions) {
  const { db, state, clock } = options
  const cache = new Map<string, { roles: Role[], expiresAt: number }>()
  let unsubscribe: (() => Promise<void>) | undefined
  const sorted = (roles: Iterable<string>) =>
    [...new Set(roles)].sort((a, b) => (ORDER.get(a) ?? 99) - (ORDER.get(b) ?? 99)) as Role[]

  async function rolesOf (account: string): Promise<Role[]> {
    const cached = cache.get(account)
    if (cached !== undefined && cached.expiresAt > Date.now()) return cached.roles
    const roles = sorted(await listAccountRoles(db, account))
    if (options.cacheTtlMs > 0) {
      if (cache.size >= CACHE_MAX_ENTRIES) cache.delete(cache.keys().next().value as string)
      cache.set(account, { roles, expiresAt: Date.now() + options.cacheTtlMs })
    }
    return roles
  }

  return {
    rolesOf,

    async get (account: string) {
      return { account, roles: await rolesOf(account) }
    },

    /** Sets the account's roles to exactly `roles` (an empty list revokes them all). */
    async setRoles (grantedBy: string, account: string, roles: Role[]) {
      await replaceAccountRoles(db, account, [...new Set(roles)], { by: grantedBy, at: clock() })
      cache.delete(account)
      try {
        await state.publish(CHANGED_CHANNEL, account)
      } catch (err) {
        // Committed; other replicas pick the change up when their cache entry expires.
        options.log.warn({ err, account }, 'could not broadcast an account role change')
      }
      return { account, roles: await rolesOf(account) }
    },

    async start () {
      unsubscribe = await state.subscribe(CHANGED_CHANNEL, (account) => { cache.delete(account) })
    },

    async close () {
      await unsubscribe?.()
      cache.clear()
    }
  }
}

export type AccountService = ReturnType<typeof createAccountService>
