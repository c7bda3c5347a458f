// domain-api: DID resolutions per second through GET /1.0/identifiers/:did vs a bare Fastify route
// serving the same resolution results stored as rows of the same database (one SELECT by primary key).
//
// Both servers run in one child process (resolve-servers.ts), so they get the same CPU; the load
// generator runs here. With DATABASE_URL the baseline reads the app's own database on that server;
// without it the app runs on embedded PGlite and the baseline on a PGlite twin in the same process.
// Rounds alternate so background load on the machine hits both alike. Target: app ≥ 0.5× baseline.
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import type autocannon from 'autocannon'
import { createTestDatabase } from '@impact/persistence/testing'
import { load, ratio, report } from '../lib.ts'
import { formatSigner, generateSigner } from '@impact/ucan'

const ROUNDS = 3
const ROUND_S = 4
const HTTP_CONNECTIONS = 50
const TARGET = 0.5
const root = fileURLToPath(new URL('../../', import.meta.url))

const serverUrl = process.env.DATABASE_URL !== undefined && process.env.DATABASE_URL !== ''
  ? process.env.DATABASE_URL
  : undefined

interface Servers { app: string, baseline: string, dids: string[] }

async function main () {
  const database = serverUrl !== undefined ? await createTestDatabase(serverUrl) : undefined
  const { DATABASE_URL: _db, REDIS_URL: _redis, ...inherited } = process.env
  const child = spawn(process.execPath, ['--conditions=@impact/source', `${root}bench/domain-api/resolve-servers.ts`], {
    cwd: root,
    env: {
      ...inherited,
      NODE_ENV: 'production',
      LOG_LEVEL: 'warn',
      DOMAIN_API_ADMIN_KEY: randomBytes(36).toString('base64url'),
      DOMAIN_API_PRIVATE_KEY: formatSigner(await generateSigner()),
      RATE_LIMIT_MAX: '1000000',
      RATE_LIMIT_PRINCIPAL_MAX: '1000000',
      VERIFICATION_SWEEP_INTERVAL_SECONDS: '0',
      ...(database !== undefined
        ? { DATABASE_URL: database.url ?? '', MIGRATE_ON_START: 'always', DATABASE_POOL_MAX: '10' }
        : { DATA_DIR: 'memory://' })
    },
    stdio: ['ignore', 'pipe', 'inherit']
  })
  try {
    const servers = await new Promise<Servers>((resolve, reject) => {
      child.once('exit', (code) => reject(new Error(`resolve-servers exited (${code})`)))
      createInterface({ input: child.stdout! }).once('line', (line) => resolve(JSON.parse(line) as Servers))
    })
    let next = 0
    const options = (url: string) => ({
      url,
      connections: HTTP_CONNECTIONS,
      requests: [{
        setupRequest: (request: autocannon.Request) =>
          ({ ...request, path: `/1.0/identifiers/${servers.dids[next++ % servers.dids.length]}` })
      }]
    })
    await load({ ...options(servers.app), duration: 2 })
    await load({ ...options(servers.baseline), duration: 2 })
    const viaApp: Array<Awaited<ReturnType<typeof load>>> = []
    const bare: Array<Awaited<ReturnType<typeof load>>> = []
    for (let round = 0; round < ROUNDS; round++) {
      bare.push(await load({ ...options(servers.baseline), duration: ROUND_S }))
      viaApp.push(await load({ ...options(servers.app), duration: ROUND_S }))
    }
    const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length
    const appRate = mean(viaApp.map((r) => r.requestsPerSec))
    const bareRate = mean(bare.map((r) => r.requestsPerSec))
    const failures = [...viaApp, ...bare].reduce((n, r) => n + r.errors + r.non2xx, 0)
    const setup = database !== undefined
      ? `PostgreSQL (${new URL(serverUrl!).host}), pool of 10 each side`
      : 'embedded PGlite (one engine each side)'
    report(`domain-api DID resolutions/s — ${setup}, ${servers.dids.length} DIDs, ${HTTP_CONNECTIONS} HTTP clients, ` +
      `${ROUNDS}×${ROUND_S}s rounds`, [
      ['baseline: bare Fastify, stored result /s', bareRate],
      ['app: GET /1.0/identifiers/:did /s', appRate],
      ['app latency p50 / p99 (ms)', `${viaApp.at(-1)!.p50} / ${viaApp.at(-1)!.p99}`],
      ['baseline latency p50 / p99 (ms)', `${bare.at(-1)!.p50} / ${bare.at(-1)!.p99}`],
      ['failed or non-2xx requests', failures],
      [`ratio app / baseline (target ≥ ${TARGET}×)`, ratio(appRate, bareRate)],
      ['verdict', ratio(appRate, bareRate) >= TARGET ? 'target met' : 'BELOW TARGET']
    ])
    process.stdout.write([
      '  Compared: resolutions through the registry (settling due transitions, reading the latest version,',
      '  building the DID Core document and its metadata, schema serialisation) against a bare Fastify route',
      '  answering the same stored result with one primary-key SELECT on the same database.',
      ''
    ].join('\n'))
  } finally {
    if (child.exitCode === null) {
      const gone = new Promise((resolve) => child.once('exit', resolve))
      child.kill('SIGTERM')
      await gone
    }
    await database?.drop()
  }
}

await main()
