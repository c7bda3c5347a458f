import type { FastifyBaseLogger } from 'fastify'
import type { Kysely } from 'kysely'
import type { SharedState } from '@impact/shared-state'
import { findAccountProfile, replaceAccountRoles } from '../db/account-role.repository.ts'
import { accountFootprint, assignAccountOrganisation, findAccountOrganisation } from '../db/tenancy.repository.ts'
import type { DB } from '../db/types.ts'
import { DomainOrganisationConflictError, DomainOrganisationForbiddenError } from '../errors.ts'
import { ROLES, type Role } from '../schemas/role.ts'
import { principalOf, type Caller } from './api-keys.ts'
import type { Clock } from './clock.ts'
import { checkOrganisation } from './organisations.ts'

const CHANGED_CHANNEL = 'account-roles-changed'
const CACHE_MAX_ENTRIES = 10_000
const ORDER = new Map<string, number>(ROLES.map((role, i) => [role, i]))
/** The platform's governance: granted by platform admins only, since compliance reads every domain's metadata. */
const GOVERNANCE_ROLES: readonly Role[] = ['compliance', 'voter', 'vetoer']

interface Profile { roles: Role[], organisation: string | null }

export interface AccountServiceOptions {
  db: Kysely<DB>
  state: SharedState
  clock: Clock
  /** How long an account's roles stay cached (0: always ask the database); changes evict at once. */
  cacheTtlMs: number
  log: FastifyBaseLogger
}

/**
 * Roles belong to accounts (DIDs), granted by an admin, and so may an organisation (fixed once assigned). An API
 * key acts with the roles it names that its account also holds; a UCAN caller with its account's roles. A change
 * evicts the cached profile of the account on every replica (through Redis when shared).
 */
export function createAccountService (options: AccountServiceOptions) {
  const { db, state, clock } = options
  const cache = new Map<string, Profile & { expiresAt: number }>()
  let unsubscribe: (() => Promise<void>) | undefined
  const sorted = (roles: Iterable<string>) =>
    [...new Set(roles)].sort((a, b) => (ORDER.get(a) ?? 99) - (ORDER.get(b) ?? 99)) as Role[]

  async function profileOf (account: string): Promise<Profile> {
    const cached = cache.get(account)
    if (cached !== undefined && cached.expiresAt > Date.now()) return cached
    const { roles, organisation } = await findAccountProfile(db, account)
    const profile = { roles: sorted(roles), organisation }
    if (options.cacheTtlMs > 0) {
      if (cache.size >= CACHE_MAX_ENTRIES) cache.delete(cache.keys().next().value as string)
      cache.set(account, { ...profile, expiresAt: Date.now() + options.cacheTtlMs })
    }
    return profile
  }

  /** An admin of an organisation manages the accounts of that organisation only. */
  function assertManages (caller: Caller, account: string, organisation: string | null) {
    if (caller.organisation === null || organisation === caller.organisation) return
    throw new DomainOrganisationForbiddenError(`Account ${account} belongs to ${organisation !== null
      ? `organisation ${organisation}`
      : 'no organisation'}; the caller manages organisation ${caller.organisation}`)
  }

  const view = (account: string, profile: Profile) =>
    ({ account, roles: profile.roles, organisation: profile.organisation })

  return {
    rolesOf: async (account: string) => (await profileOf(account)).roles,
    profileOf,

    async get (caller: Caller, account: string) {
      const profile = await profileOf(account)
      // An account nothing was granted to yet is no one's: any admin may look.
      const known = profile.roles.length > 0 || profile.organisation !== null
      if (known) assertManages(caller, account, profile.organisation)
      return view(account, profile)
    },

    /**
     * Sets the account's roles to exactly `roles` (an empty list revokes them all) and, when it has none yet, its
     * organisation: the one given, else the calling admin's.
     */
    async setRoles (caller: Caller, account: string, roles: Role[], organisation?: string) {
      const current = await findAccountOrganisation(db, account)
      const wanted = organisation ?? current ?? caller.organisation
      if (current !== null) assertManages(caller, account, current)
      assertManages(caller, account, wanted)
      if (caller.organisation !== null) {
        const governance = roles.filter((role) => GOVERNANCE_ROLES.includes(role))
        if (governance.length > 0) {
          throw new DomainOrganisationForbiddenError(`Only a platform admin grants ${governance.join(', ')}`)
        }
      }
      if (current !== null && wanted !== current) {
        throw new DomainOrganisationConflictError(`Account ${account} belongs to organisation ${current}; an ` +
          'account\'s organisation does not change (give the person a new account)')
      }
      const grant = { by: principalOf(caller), at: clock() }
      if (current === null && wanted !== null) {
        await checkOrganisation(db, wanted)
        const footprint = await accountFootprint(db, account)
        // An organisation's admin takes in only accounts new to the registry, never one acting elsewhere already.
        const acting = (await profileOf(account)).roles.length > 0 || footprint.keyOrganisations.length > 0 ||
          footprint.controls
        if (caller.organisation !== null && acting) {
          throw new DomainOrganisationForbiddenError(`Account ${account} already acts in the registry (roles, keys ` +
            'or domains it controls): only a platform admin puts it in an organisation')
        }
        if (footprint.keyOrganisations.some((o) => o !== null && o !== wanted)) {
          throw new DomainOrganisationConflictError(`Account ${account} has keys of another organisation than ` +
            `${wanted}: revoke them first`)
        }
        await assignAccountOrganisation(db, account, wanted, grant)
      }
      await replaceAccountRoles(db, account, [...new Set(roles)], grant)
      cache.delete(account)
      try {
        await state.publish(CHANGED_CHANNEL, account)
      } catch (err) {
        // Committed; other replicas pick the change up when their cache entry expires.
        options.log.warn({ err, account }, 'could not broadcast an account role change')
      }
      return view(account, await profileOf(account))
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
