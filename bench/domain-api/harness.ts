import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { createTestDatabase } from '@impact/persistence/testing'
import { loadConfig } from '../../apps/domain-api/src/config.ts'
import { openAppDatabase } from '../../apps/domain-api/src/db/open.ts'
import { setupProgramme, type BenchProgramme } from './programme.ts'
import { startDomainApi } from './server.ts'

const serverUrl = process.env.DATABASE_URL !== undefined && process.env.DATABASE_URL !== ''
  ? process.env.DATABASE_URL
  : undefined

export interface Bench {
  app: { url: string, stop: () => Promise<void> }
  pool: pg.Pool | undefined
  embedded: Awaited<ReturnType<typeof openAppDatabase>> | undefined
  /** The PostgreSQL server's host, or undefined on embedded PGlite. */
  serverHost: string | undefined
  programme: BenchProgramme
  close: () => Promise<void>
}

/**
 * domain-api in its own process with the bench programme registered, and the baseline's way into the same
 * database: a `pg` pool on the server (DATABASE_URL), else an embedded PGlite of the same schema here.
 */
export async function startBench (connections: { app: number, baseline: number }): Promise<Bench> {
  const database = serverUrl !== undefined ? await createTestDatabase(serverUrl) : undefined
  const adminKey = randomBytes(36).toString('base64url')
  const app = await startDomainApi({
    ...(database !== undefined
      ? { DATABASE_URL: database.url ?? '', MIGRATE_ON_START: 'always', DATABASE_POOL_MAX: String(connections.app) }
      : { DATA_DIR: 'memory://' }),
    // One key from one address at full speed: budgets above the load, so the limiter is paid for but never refuses.
    RATE_LIMIT_MAX: '1000000',
    RATE_LIMIT_PRINCIPAL_MAX: '1000000',
    DOMAIN_API_ADMIN_KEY: adminKey,
    VERIFICATION_QUORUM: '1'
  })
  const pool = database !== undefined
    ? new pg.Pool({ connectionString: database.url, max: connections.baseline })
    : undefined
  const embedded = database === undefined ? await openAppDatabase(loadConfig({ DATA_DIR: 'memory://' })) : undefined
  const close = async () => {
    await app.stop()
    await pool?.end()
    await embedded?.close()
    await database?.drop()
  }
  try {
    return {
      app,
      pool,
      embedded,
      serverHost: serverUrl !== undefined ? new URL(serverUrl).host : undefined,
      programme: await setupProgramme(app.url, adminKey),
      close
    }
  } catch (error) {
    await close()
    throw error
  }
}
