import type { FastifyBaseLogger } from 'fastify'
import type { Kysely } from 'kysely'
import type { SharedState } from '@impact/shared-state'
import {
  findRevoked, insertRevocations, listRevocations, listRevokedSince, pruneRevocations, type Revocation
} from '../db/repositories/revocations.ts'
import type { DB } from '../db/types.ts'

export type { Revocation } from '../db/repositories/revocations.ts'

export interface RevocationOptions {
  db: Kysely<DB>
  state: SharedState
  /** How often expired rows are pruned and the shared copy is checked (default 60 s). */
  maintenanceMs?: number
}

const KEY = 'revoked:'
const SEEDED = 'revoked:seeded'
const CHANNEL = 'revocations'
// Kept this much past expiry: a replica whose clock runs behind still sees the revocation. Also the
// overlap of catch-up rounds (revocation times come from the database's clock).
const SKEW_SECONDS = 60
const PAGE = 1000
const nowSeconds = () => Math.floor(Date.now() / 1000)

/**
 * Revoked delegation CIDs. The database holds them for good (until the delegation would have
 * expired); shared state holds a copy every replica reads on each verification, so a revocation
 * holds everywhere as soon as `revoke` returns. The copy is rebuilt from the database when it is
 * missing (a new or flushed Redis: the `seeded` marker is gone), at start and on each maintenance
 * round, which also prunes expired rows and copies again what was revoked since the last good round
 * (a revocation whose copy failed while Redis was away). With shared state unreachable, checks read
 * the database.
 */
export function createRevocations (options: RevocationOptions) {
  const { db, state } = options
  let log: FastifyBaseLogger | undefined
  const listeners = new Set<(cids: string[]) => void>()
  let timer: NodeJS.Timeout | undefined
  let unsubscribe: (() => Promise<void>) | undefined
  let syncedSince = new Date(Date.now() - SKEW_SECONDS * 1000)
  let warnedAt = 0

  const ttlMs = (expiration: number) => (expiration + SKEW_SECONDS) * 1000 - Date.now()
  const copy = async (revocations: Revocation[]) => {
    const live = revocations.filter((r) => ttlMs(r.expiration) > 0)
    await Promise.all(live.map(async (r) => await state.set(KEY + r.cid, r.did, { ttlMs: ttlMs(r.expiration) })))
  }

  /** Copies every live revocation when the shared copy is missing; false when it was there. */
  async function seedIfMissing (): Promise<boolean> {
    if (await state.get(SEEDED) !== null) return false
    let count = 0
    for (let after = ''; ;) {
      const page = await listRevocations(db, after, PAGE)
      await copy(page)
      count += page.length
      if (page.length < PAGE) break
      after = page[page.length - 1]?.cid as string
    }
    await state.set(SEEDED, String(Date.now()))
    log?.info({ count }, 'revocations copied to shared state')
    return true
  }

  async function maintain () {
    const started = Date.now()
    try {
      await pruneRevocations(db, nowSeconds() - SKEW_SECONDS)
      if (!await seedIfMissing()) await copy(await listRevokedSince(db, syncedSince))
      syncedSince = new Date(started - SKEW_SECONDS * 1000)
    } catch (err) {
      log?.warn({ err }, 'revocation maintenance failed; retried next round')
    }
  }

  return {
    /** One maintenance round (run every `maintenanceMs`): prune expired rows, refill a missing shared copy. */
    maintain,

    /** Revokes delegations for good; every replica refuses them once this resolves. */
    async revoke (revocations: Revocation[]) {
      const live = [...new Map(revocations.filter((r) => r.expiration > nowSeconds()).map((r) => [r.cid, r])).values()]
      if (live.length === 0) return
      await insertRevocations(db, live)
      await copy(live)
      await state.publish(CHANNEL, JSON.stringify(live.map((r) => r.cid)))
    },

    /** Whether any of these CIDs is revoked: the verifier asks on every check. */
    async isRevoked (cids: string[]): Promise<boolean> {
      let found: Array<string | null>
      try {
        found = await Promise.all(cids.map(async (cid) => await state.get(KEY + cid)))
      } catch (err) {
        // Once a minute at most: during an outage every request comes through here.
        if (Date.now() - warnedAt > 60_000) {
          warnedAt = Date.now()
          log?.warn({ err }, 'shared state unreachable: revocations read from the database')
        }
        return (await findRevoked(db, cids)).length > 0
      }
      return found.some((value) => value !== null)
    },

    /** Hears of CIDs revoked on any replica (open connections opened with them are closed). */
    onRevoked (listener: (cids: string[]) => void): () => void {
      listeners.add(listener)
      return () => { listeners.delete(listener) }
    },

    async start (logger: FastifyBaseLogger) {
      log = logger
      unsubscribe = await state.subscribe(CHANNEL, (message) => {
        let cids: unknown
        try { cids = JSON.parse(message) } catch { return }
        if (!Array.isArray(cids)) return
        for (const listener of listeners) listener(cids.filter((c): c is string => typeof c === 'string'))
      })
      await maintain()
      timer = setInterval(() => { maintain().catch(() => {}) }, options.maintenanceMs ?? 60_000)
      timer.unref()
    },

    async close () {
      clearInterval(timer)
      await unsubscribe?.()
      listeners.clear()
    }
  }
}

export type Revocations = ReturnType<typeof createRevocations>
