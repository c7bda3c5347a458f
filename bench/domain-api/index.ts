// domain-api: domain creates per second through the HTTP API vs raw inserts of the same rows.
//
// With DATABASE_URL (PostgreSQL): the app (its real server.ts, in its own process) and the raw
// `pg` baseline write to the same fresh database on that server. Without it: the app runs on
// embedded PGlite and the baseline inserts into an embedded PGlite of the same schema here.
//
// A create through the API pays for HTTP, JSON parsing and schema validation, API-key lookup,
// type/DID/validity checks and the response — and writes two rows (the domain and its `created`
// history entry, in one statement). The baseline writes only the domain row with plain INSERTs.
// Baseline and API alternate in short rounds so background load on the machine hits both alike.
// Target: API ≥ 0.5× the raw loop at the same concurrency.
import { randomBytes, randomUUID } from 'node:crypto'
import { sql } from 'kysely'
import { load, ratio, report } from '../lib.ts'
import { startBench } from './harness.ts'

const ROUNDS = 3
const ROUND_S = 4
/** Database connections on both sides: the raw loop's workers and the app's pool. */
const DB_CONNECTIONS = 10
/** Concurrent HTTP clients (autocannon connections), as many callers as a busy registry has. */
const HTTP_CONNECTIONS = 50
const TARGET = 0.5

const PROTOCOL = `did:ixo:entity:${randomBytes(16).toString('hex')}`
const entityDid = () => `did:ixo:entity:${randomBytes(16).toString('hex')}`

type Insert = () => Promise<void>

/** The raw baseline: `workers` loops each inserting one domain row per statement for `seconds`. */
async function rawLoop (insert: Insert, workers: number, seconds: number): Promise<number> {
  let done = 0
  const end = Date.now() + seconds * 1000
  await Promise.all(Array.from({ length: workers }, async () => {
    while (Date.now() < end) {
      await insert()
      done++
    }
  }))
  return done / seconds
}

const INSERT_SQL = `insert into domains (did, type, class, controllers, metadata, valid_from, valid_until, status,
  created_by_key, created_by_account, created_at, updated_at)
  values ($1, 'project', $2, $3, $4, null, null, 'draft', 'bench', 'did:ixo:bench', $5, $5)`
const params = () =>
  [entityDid(), PROTOCOL, ['did:ixo:bench'], JSON.stringify({ name: 'Clean Cooking Project' }), new Date()]

async function main () {
  // The class is a verified protocol of the registry, so every create also checks it (a realistic request).
  const { app, pool, embedded, serverHost, programme, close } =
    await startBench({ app: DB_CONNECTIONS, baseline: DB_CONNECTIONS })
  const insert: Insert = pool !== undefined
    ? async () => { await pool.query(INSERT_SQL, params()) }
    : async () => {
      const [did, cls, controllers, metadata, at] = params()
      const content = sql`${did}, 'project', ${cls}, ${controllers}, ${metadata}`
      await sql`insert into domains (did, type, class, controllers, metadata, valid_from, valid_until, status,
        created_by_key, created_by_account, created_at, updated_at)
        values (${content}, null, null, 'draft', 'bench', 'did:ixo:bench', ${at}, ${at})`.execute(embedded!.db)
    }
  try {
    const { registrarKey, protocol } = programme
    const createBody = JSON.stringify({
      type: 'Project',
      class: protocol,
      metadata: { name: 'Clean Cooking Project' }
    })
    const createOptions = {
      url: `${app.url}/v1/domains`,
      method: 'POST' as const,
      connections: HTTP_CONNECTIONS,
      headers: { authorization: `Bearer ${registrarKey}`, 'content-type': 'application/json' },
      body: createBody
    }
    await load({ ...createOptions, duration: 2 })
    await rawLoop(insert, DB_CONNECTIONS, 1)

    const raw: number[] = []
    const viaApi: Array<Awaited<ReturnType<typeof load>>> = []
    for (let round = 0; round < ROUNDS; round++) {
      raw.push(await rawLoop(insert, pool !== undefined ? DB_CONNECTIONS : 1, ROUND_S))
      viaApi.push(await load({ ...createOptions, duration: ROUND_S }))
    }
    const withKey = await load({
      ...createOptions,
      duration: ROUND_S,
      requests: [{
        setupRequest: (request) => ({ ...request, headers: { ...request.headers, 'idempotency-key': randomUUID() } })
      }]
    })
    const sequential = pool !== undefined ? await rawLoop(insert, 1, ROUND_S) : undefined

    const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length
    const rawRate = mean(raw)
    const apiRate = mean(viaApi.map((r) => r.requestsPerSec))
    const failures = viaApi.reduce((n, r) => n + r.errors + r.non2xx, 0) + withKey.errors + withKey.non2xx
    const last = viaApi.at(-1)!
    const setup = pool !== undefined
      ? `PostgreSQL (${serverHost}), ${DB_CONNECTIONS} database connections each side`
      : 'embedded PGlite (one engine each side)'
    report(`domain-api creates/s — ${setup}, ${HTTP_CONNECTIONS} HTTP clients, ${ROUNDS}×${ROUND_S}s rounds`, [
      ['baseline: raw INSERT of the domain row /s', rawRate],
      ...(sequential !== undefined
        ? [['baseline: same, one connection, sequential /s', sequential] as [string, number]]
        : []),
      ['API: POST /v1/domains (201s) /s', apiRate],
      ['API: POST /v1/domains + Idempotency-Key /s', withKey.requestsPerSec],
      ['API latency p50 / p99 (ms)', `${last.p50} / ${last.p99}`],
      ['failed or non-2xx API requests', failures],
      [`ratio API / raw (target ≥ ${TARGET}×)`, ratio(apiRate, rawRate)],
      ['ratio API+Idempotency-Key / raw', ratio(withKey.requestsPerSec, rawRate)],
      ['verdict', ratio(apiRate, rawRate) >= TARGET ? 'target met' : 'BELOW TARGET']
    ])
    process.stdout.write([
      '  Compared: domains registered per second through POST /v1/domains (HTTP, auth, validation, the domain',
      '  row plus its history entry, and with Idempotency-Key the claim row) against plain INSERTs of the',
      pool !== undefined
        ? '  domain row alone by raw `pg` loops on the same database with as many connections as the app\'s pool.'
        : '  domain row alone by one raw loop on an in-process PGlite of the same schema (PGlite is single-threaded).',
      '  The app writes the creates that arrive together in one statement, which is how it keeps up.',
      ''
    ].join('\n'))
  } finally {
    await close()
  }
}

await main()
