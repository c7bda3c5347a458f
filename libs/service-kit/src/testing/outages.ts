import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, describe, expect, it } from 'vitest'
import { DEFAULT_COMMAND_TIMEOUT_MS } from '@impact/shared-state'
import { runOutageDrill } from './outage-drill.ts'
import { startPrivatePostgres, type PrivatePostgres } from './private-postgres.ts'
import { startServerProcess, type ServerProcess } from './server-process.ts'
import { startTcpRelay, type TcpRelay } from './tcp-relay.ts'

export interface OutageTraffic {
  /** One request; answers a label for its outcome (e.g. `201`, `503 SERVICE_UNAVAILABLE`). */
  request: () => Promise<string>
  /** Asserts that every write the server acknowledged during the drill can be read back now. */
  expectAcknowledgedKept: () => Promise<void>
}

export interface OutagesOptions {
  /** The app's `src/server.ts`. */
  entry: string
  /** The app's environment, without DATABASE_URL and REDIS_URL. */
  env: Record<string, string>
  /** A fresh database on the test server (persistence's `createTestDatabase`). */
  createDatabase: () => Promise<{ url: string | undefined, drop: () => Promise<void> }>
  /** Traffic against the running server; may set up what it needs (keys, accounts) first. */
  traffic: (server: ServerProcess) => Promise<OutageTraffic>
  /** Every outcome label must match. */
  allowed: RegExp
  /** The label of the interface's unavailable answer; the drills must see it. */
  unavailable: string
}

const DATABASE_URL = process.env.DATABASE_URL ?? ''
const REDIS_URL = process.env.REDIS_URL ?? ''
const DRILL_TIMEOUT_MS = 60_000

async function relayTo (url: string): Promise<TcpRelay> {
  const parsed = new URL(url)
  return await startTcpRelay({ host: parsed.hostname, port: Number(parsed.port) })
}

/**
 * An app's outage drills on its real entry: every PostgreSQL and Redis connection reset mid-query and then
 * refused (a failover), and a PostgreSQL server stopped at once. The process must stay up, answer only
 * `allowed` outcomes, recover without a restart and keep what it acknowledged. Servers pass only (PGlite
 * lives inside the app's process).
 */
export function describeOutages (options: OutagesOptions): void {
  describe.runIf(DATABASE_URL !== '')('when PostgreSQL or Redis goes away', () => {
    const cleanup: Array<() => Promise<void>> = []
    afterAll(async () => { for (const step of cleanup.reverse()) await step() })

    const drill = async (server: ServerProcess, outage: () => Promise<void>) => {
      cleanup.push(server.stop)
      const traffic = await options.traffic(server)
      const { outcomes, recovered } = await runOutageDrill({ server, request: traffic.request, outage })
      expect(server.exitCode(), server.output().slice(-3000)).toBeUndefined()
      expect([...outcomes.keys()].filter((label) => !options.allowed.test(label))).toEqual([])
      expect(outcomes.get(options.unavailable), JSON.stringify([...outcomes])).toBeGreaterThan(0)
      expect(recovered).toBe(true)
      await traffic.expectAcknowledgedKept()
    }

    it('rides out connections reset mid-query and refused, then recovers without a restart', async () => {
      const database = await options.createDatabase()
      cleanup.push(database.drop)
      const pg = await relayTo(database.url ?? '')
      const redis = REDIS_URL !== '' ? await relayTo(REDIS_URL) : undefined
      for (const relay of [pg, redis]) if (relay !== undefined) cleanup.push(relay.close)
      const server = await startServerProcess(options.entry, {
        ...options.env,
        MIGRATE_ON_START: 'always',
        DATABASE_URL: pg.through(database.url ?? ''),
        ...(redis !== undefined ? { REDIS_URL: redis.through(REDIS_URL) } : {})
      })
      await drill(server, async () => {
        for (let i = 0; i < 3; i++) {
          pg.reset()
          redis?.reset()
          await sleep(200)
        }
        pg.cut()
        redis?.cut()
        // Longer than a Redis command may wait queued for a reconnection, so requests meet the outage.
        await sleep(DEFAULT_COMMAND_TIMEOUT_MS + 500)
        pg.restore()
        redis?.restore()
      })
    }, DRILL_TIMEOUT_MS)

    it('rides out its PostgreSQL server stopping at once, then recovers when it is back', async (context) => {
      const postgres: PrivatePostgres | undefined = await startPrivatePostgres()
      if (postgres === undefined) return context.skip('no PostgreSQL server binaries on this machine')
      cleanup.push(postgres.destroy)
      const server = await startServerProcess(options.entry, {
        ...options.env,
        MIGRATE_ON_START: 'always',
        DATABASE_URL: postgres.url
      })
      await drill(server, async () => {
        await postgres.stop('immediate')
        await sleep(700)
        await postgres.start()
      })
    }, DRILL_TIMEOUT_MS)
  })
}
