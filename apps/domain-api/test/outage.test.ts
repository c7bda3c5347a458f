import { fileURLToPath } from 'node:url'
import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestDatabase, startPrivatePostgres, startTcpRelay, type PrivatePostgres, type TcpRelay, type TestDatabase } from '@impact/persistence/testing'
import { runOutageDrill, startServerProcess, type ServerProcess } from '@impact/service-kit/testing'
import { ADMIN_KEY, PROTOCOL } from './helper.ts'

const ENTRY = fileURLToPath(new URL('../src/server.ts', import.meta.url))
const DATABASE_URL = process.env.DATABASE_URL ?? ''
const REDIS_URL = process.env.REDIS_URL ?? ''
const json = { 'content-type': 'application/json' }
const ALLOWED = /^(200|201|503 SERVICE_UNAVAILABLE)$/

/** Creates and lists domains against a real server process; remembers every creation it acknowledged. */
async function traffic (server: ServerProcess) {
  const issued = await fetch(`${server.url}/v1/api-keys`, {
    method: 'POST',
    headers: { ...json, authorization: `Bearer ${ADMIN_KEY}` },
    body: JSON.stringify({ name: 'registrar', roles: ['registrar'] })
  })
  const auth = { ...json, authorization: `Bearer ${(await issued.json() as { key: string }).key}` }
  const acknowledged: string[] = []
  let n = 0
  const request = async () => {
    const create = n++ % 2 === 0
    const res = create
      ? await fetch(`${server.url}/v1/domains`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ type: 'Project', class: PROTOCOL, metadata: { name: `Stove programme ${n}` } })
      })
      : await fetch(`${server.url}/v1/domains?limit=5`, { headers: auth })
    const body = await res.json() as { did?: string, code?: string }
    if (create && res.status === 201 && body.did !== undefined) acknowledged.push(body.did)
    return res.status >= 400 ? `${res.status} ${body.code ?? ''}` : String(res.status)
  }
  const unreadable = async () => {
    const missing: string[] = []
    for (const did of acknowledged) {
      const res = await fetch(`${server.url}/v1/domains/${did}`, { headers: auth })
      if (res.status !== 200) missing.push(`${did}: ${res.status}`)
    }
    return missing
  }
  return { request, acknowledged, unreadable }
}

// PGlite lives inside the app's process, so only a server deployment can lose its database.
describe.runIf(DATABASE_URL !== '')('domain-api process when PostgreSQL or Redis drops its connections', () => {
  let database: TestDatabase
  const relays: TcpRelay[] = []
  let server: ServerProcess | undefined

  beforeAll(async () => { database = await createTestDatabase() })
  afterAll(async () => {
    await server?.stop()
    for (const relay of relays) await relay.close()
    await database?.drop()
  })

  it('answers 503 while every connection is reset or refused, stays up, recovers and keeps what it acknowledged', async () => {
    const relayFor = async (url: string) => {
      const parsed = new URL(url)
      const relay = await startTcpRelay({ host: parsed.hostname, port: Number(parsed.port) })
      relays.push(relay)
      return relay
    }
    const pgRelay = await relayFor(database.url ?? '')
    const redisRelay = REDIS_URL !== '' ? await relayFor(REDIS_URL) : undefined
    server = await startServerProcess(ENTRY, {
      NODE_ENV: 'test',
      DOMAIN_API_ADMIN_KEY: ADMIN_KEY,
      DATA_DIR: 'memory://',
      MIGRATE_ON_START: 'always',
      DATABASE_URL: pgRelay.through(database.url ?? ''),
      ...(redisRelay !== undefined ? { REDIS_URL: redisRelay.through(REDIS_URL) } : {})
    })
    const load = await traffic(server)
    const { outcomes, recovered } = await runOutageDrill({
      server,
      request: load.request,
      outage: async () => {
        for (let i = 0; i < 3; i++) {
          pgRelay.reset()
          redisRelay?.reset()
          await sleep(200)
        }
        pgRelay.cut()
        redisRelay?.cut()
        await sleep(500)
        pgRelay.restore()
        redisRelay?.restore()
      }
    })
    expect(server.exitCode(), server.output().slice(-2000)).toBeUndefined()
    expect([...outcomes.keys()].filter((label) => !ALLOWED.test(label))).toEqual([])
    expect(outcomes.get('503 SERVICE_UNAVAILABLE')).toBeGreaterThan(0)
    expect(recovered).toBe(true)
    expect(load.acknowledged.length).toBeGreaterThan(0)
    expect(await load.unreadable()).toEqual([])
  })
})

describe.runIf(DATABASE_URL !== '')('domain-api process when its PostgreSQL server stops', () => {
  let postgres: PrivatePostgres | undefined
  let server: ServerProcess | undefined

  beforeAll(async () => { postgres = await startPrivatePostgres() })
  afterAll(async () => {
    await server?.stop()
    await postgres?.destroy()
  })

  it('answers 503 while the server is down (immediate stop), stays up and recovers when it is back', async (context) => {
    if (postgres === undefined) return context.skip('no PostgreSQL server binaries on this machine')
    const cluster = postgres
    server = await startServerProcess(ENTRY, {
      NODE_ENV: 'test',
      DOMAIN_API_ADMIN_KEY: ADMIN_KEY,
      DATA_DIR: 'memory://',
      MIGRATE_ON_START: 'always',
      DATABASE_URL: cluster.url
    })
    const load = await traffic(server)
    const { outcomes, recovered } = await runOutageDrill({
      server,
      request: load.request,
      outage: async () => {
        await cluster.stop('immediate')
        await sleep(700)
        await cluster.start()
      }
    })
    expect(server.exitCode(), server.output().slice(-2000)).toBeUndefined()
    expect([...outcomes.keys()].filter((label) => !ALLOWED.test(label))).toEqual([])
    expect(outcomes.get('503 SERVICE_UNAVAILABLE')).toBeGreaterThan(0)
    expect(recovered).toBe(true)
    expect(load.acknowledged.length).toBeGreaterThan(0)
    expect(await load.unreadable()).toEqual([])
  })
})
