import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { MEMORY_DATA_DIR } from '../database.ts'

export interface TestDatabase {
  /** Pass to the app config as `DATABASE_URL` (undefined on the embedded engine). */
  url: string | undefined
  dataDir: string
  /** Config fragment with both, ready to spread into an app's env. */
  env: Record<string, string>
  /** Drops the server database (no-op for PGlite, whose memory goes with the app). */
  drop: () => Promise<void>
}

/** A test file's own database: a fresh one on the `DATABASE_URL` server, dropped afterwards, or in-memory PGlite. */
export async function createTestDatabase (serverUrl = process.env.DATABASE_URL): Promise<TestDatabase> {
  if (serverUrl === undefined || serverUrl === '') {
    return { url: undefined, dataDir: MEMORY_DATA_DIR, env: { DATA_DIR: MEMORY_DATA_DIR }, drop: async () => {} }
  }
  const name = `test_${randomBytes(6).toString('hex')}`
  const admin = new pg.Client({ connectionString: serverUrl })
  await admin.connect()
  try {
    await admin.query(`create database "${name}"`)
  } finally {
    await admin.end()
  }
  const url = new URL(serverUrl)
  url.pathname = `/${name}`
  return {
    url: url.toString(),
    dataDir: MEMORY_DATA_DIR,
    env: { DATABASE_URL: url.toString(), DATA_DIR: MEMORY_DATA_DIR, MIGRATE_ON_START: 'always' },
    drop: async () => {
      const client = new pg.Client({ connectionString: serverUrl })
      await client.connect()
      try {
        await client.query(`drop database if exists "${name}" with (force)`)
      } finally {
        await client.end()
      }
    }
  }
}
