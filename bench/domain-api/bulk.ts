// domain-api: bulk registrations per second through POST /v1/domains/batch (1,000 devices a request) vs raw
// `pg` multi-row INSERTs of the same rows into the same table.
//
// With DATABASE_URL (PostgreSQL): the app (its real server.ts, in its own process) and the baseline (in this
// process) write to the same fresh database on that server. Without it: the app runs on embedded PGlite and
// the baseline inserts into an embedded PGlite of the same schema here.
//
// A batch pays for HTTP, parsing and validating 1,000 items, the API key, the class and link checks (one
// lookup per chunk), the external-id check, and writes three rows per device (the domain, its `created`
// event in the outbox, its first version) in one transaction per chunk. The baseline writes the domain rows
// alone, 1,000 per statement. Rounds alternate so background load on the machine hits both alike.
// Target: API ≥ 0.5× the raw inserts at the same concurrency.
import { randomBytes } from 'node:crypto'
import { CompiledQuery } from 'kysely'
import { ratio, report } from '../lib.ts'
import { startBench } from './harness.ts'
import type { BenchProgramme } from './programme.ts'

const ROUNDS = 3
const ROUND_S = 3
const BATCH = 1000
/** Requests in flight (and baseline statements in flight): a bulk import runs a few streams at once. */
const STREAMS = 2
const TARGET = 0.5

const entityDid = () => `did:ixo:entity:${randomBytes(16).toString('hex')}`
let serial = 0
const nextSerial = (prefix: string) => `${prefix}-${(serial++).toString().padStart(9, '0')}`

/** `streams` loops each running `step` (which registers `BATCH` devices) for `seconds`: devices per second. */
async function rate (step: () => Promise<void>, seconds: number): Promise<number> {
  let done = 0
  const end = Date.now() + seconds * 1000
  await Promise.all(Array.from({ length: STREAMS }, async () => {
    while (Date.now() < end) {
      await step()
      done += BATCH
    }
  }))
  return done / seconds
}

const COLUMNS = `did, type, class, controllers, metadata, valid_from, valid_until, status, created_by_key,
  created_by_account, created_at, updated_at, document, external_id, parent_did, organisation_did, project_did`

/** The rows a batch of `BATCH` devices writes to `domains`, as the baseline inserts them. */
function rawRows (p: BenchProgramme) {
  const now = new Date()
  return Array.from({ length: BATCH }, () => {
    const externalId = nextSerial('RAW')
    return [
      entityDid(), 'asset/device', p.protocol, ['did:ixo:bench'], JSON.stringify({ name: `Stove ${externalId}` }),
      null, null, 'draft', 'bench', 'did:ixo:bench', now, now, JSON.stringify({ links: { parent: p.project } }),
      externalId, p.project, p.organisation, p.project
    ]
  })
}

const placeholders = (rows: unknown[][]) => rows.map((row, r) =>
  `(${row.map((_, c) => `$${r * row.length + c + 1}`).join(', ')})`).join(', ')

async function main () {
  const { app, pool, embedded, serverHost, programme, close } = await startBench({ app: 10, baseline: STREAMS })
  try {
    const raw = async () => {
      const rows = rawRows(programme)
      const text = `insert into domains (${COLUMNS}) values ${placeholders(rows)}`
      if (pool !== undefined) await pool.query(text, rows.flat())
      else await embedded!.db.executeQuery(CompiledQuery.raw(text, rows.flat()))
    }
    let failures = 0
    const api = async () => {
      const items = Array.from({ length: BATCH }, () => {
        const externalId = nextSerial('API')
        return {
          type: 'Asset',
          class: programme.protocol,
          externalId,
          links: { parent: programme.project },
          metadata: { name: `Stove ${externalId}` }
        }
      })
      const res = await fetch(`${app.url}/v1/domains/batch`, {
        method: 'POST',
        headers: { authorization: `Bearer ${programme.registrarKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ items })
      })
      const body = await res.json() as { created?: number }
      if (!res.ok || body.created !== BATCH) failures++
    }
    await rate(api, 1)
    await rate(raw, 1)

    const rawRates: number[] = []
    const apiRates: number[] = []
    for (let round = 0; round < ROUNDS; round++) {
      rawRates.push(await rate(raw, ROUND_S))
      apiRates.push(await rate(api, ROUND_S))
    }
    const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length
    const rawRate = mean(rawRates)
    const apiRate = mean(apiRates)
    const setup = pool !== undefined
      ? `PostgreSQL (${serverHost})`
      : 'embedded PGlite (one engine each side)'
    report(`domain-api bulk creates/s — ${setup}, ${BATCH} devices a request, ${STREAMS} streams, ` +
      `${ROUNDS}×${ROUND_S}s rounds`, [
      ['baseline: raw multi-row INSERT of the domain rows /s', rawRate],
      ['API: POST /v1/domains/batch, devices /s', apiRate],
      ['failed batches or items', failures],
      [`ratio API / raw (target ≥ ${TARGET}×)`, ratio(apiRate, rawRate)],
      ['verdict', ratio(apiRate, rawRate) >= TARGET ? 'target met' : 'BELOW TARGET']
    ])
    process.stdout.write([
      '  Compared: devices registered per second through POST /v1/domains/batch (1,000 a request: HTTP, auth,',
      '  validation, class and link checks, the domain row plus its outbox event and version, per-item results)',
      '  against raw multi-row INSERTs of the same domain rows, 1,000 a statement, into the same table.',
      ''
    ].join('\n'))
  } finally {
    await close()
  }
}

await main()
