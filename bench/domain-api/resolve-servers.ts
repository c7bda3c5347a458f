// Child process of resolve.ts: domain-api (buildApp, as server.ts builds it) and the baseline, a bare
// Fastify route serving stored resolution results, side by side in one process so both get the same
// CPU. Prints one JSON line ({ app, baseline, dids }) once both listen; exits on SIGTERM.
import { generateKeyPairSync } from 'node:crypto'
import Fastify from 'fastify'
import pg from 'pg'
import { CompiledQuery } from 'kysely'
import { base58btc } from 'multiformats/bases/base58'
import { buildApp } from '../../apps/domain-api/src/app.ts'
import { loadConfig } from '../../apps/domain-api/src/config.ts'
import { openAppDatabase } from '../../apps/domain-api/src/db/open.ts'

const DOMAINS = Number(process.env.BENCH_DOMAINS ?? 200)
const RESULT_TYPE = 'application/did+ld+json;profile="https://w3id.org/did-resolution"'

const config = loadConfig()
const app = await buildApp(config)
const admin = { authorization: `Bearer ${config.DOMAIN_API_ADMIN_KEY}` }
// Keys act with the roles their account is granted.
const account = 'did:ixo:bench'
const grant = { roles: ['registrar'] }
await app.inject({ method: 'PUT', url: `/v1/accounts/${account}/roles`, headers: admin, payload: grant })
const key = (await app.inject({
  method: 'POST', url: '/v1/api-keys', headers: admin, payload: { name: 'bench', roles: ['registrar'], account }
})).json().key as string
// Links name live domains of the registry; an outside class of an allowed method needs no verification.
const organisation = (await app.inject({
  method: 'POST',
  url: '/v1/domains',
  headers: { authorization: `Bearer ${key}` },
  payload: { type: 'Organisation', class: 'did:ixo:protocol/dao', metadata: { name: 'Clean Cooking Programme' } }
})).json().did as string

// The baseline reads the same database on a server; on embedded PGlite, a twin in this process.
const pool =
  config.DATABASE_URL !== undefined ? new pg.Pool({ connectionString: config.DATABASE_URL, max: 10 }) : undefined
const twin = pool === undefined ? await openAppDatabase(loadConfig({ DATA_DIR: 'memory://' })) : undefined
const exec = async (text: string, values: unknown[]): Promise<Array<Record<string, unknown>>> => {
  if (pool !== undefined) return (await pool.query(text, values)).rows
  return (await twin!.db.executeQuery<Record<string, unknown>>(CompiledQuery.raw(text, values))).rows
}
await exec('create table if not exists bench_documents (did text primary key, body jsonb not null)', [])

const dids: string[] = []
for (let i = 0; i < DOMAINS; i++) {
  const raw = Buffer.from(generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' }).x!, 'base64url')
  const device = base58btc.encode(Uint8Array.from([0xed, 0x01, ...raw]))
  const created = await app.inject({
    method: 'POST',
    url: '/v1/domains',
    headers: { authorization: `Bearer ${key}` },
    payload: {
      type: 'Asset',
      class: 'did:ixo:protocol/clean-cooking',
      metadata: { name: `Stove ${i}` },
      services: [{ id: 'telemetry', type: 'LinkedDomains', serviceEndpoint: `https://stoves.example.org/${i}` }],
      alsoKnownAs: [`https://stoves.example.org/${i}`],
      links: { organisation },
      deviceKeys: [{ id: 'stove', publicKeyMultibase: device }]
    }
  })
  if (created.statusCode !== 201) throw new Error(`create: ${created.body}`)
  const did = created.json().did as string
  const resolved = await app.inject({ method: 'GET', url: `/1.0/identifiers/${did}` })
  await exec('insert into bench_documents (did, body) values ($1, $2)', [did, resolved.body])
  dids.push(did)
}

const baseline = Fastify({ logger: false })
baseline.get<{ Params: { did: string } }>('/1.0/identifiers/:did', async (request, reply) => {
  const [row] = await exec('select body from bench_documents where did = $1', [request.params.did])
  if (row === undefined) return await reply.code(404).send({ error: 'notFound' })
  return await reply.header('content-type', RESULT_TYPE).send(row.body)
})

const appUrl = await app.listen({ host: '127.0.0.1', port: 0 })
const baselineUrl = await baseline.listen({ host: '127.0.0.1', port: 0 })
process.stdout.write(`${JSON.stringify({ app: appUrl, baseline: baselineUrl, dids })}\n`)
async function stop () {
  await baseline.close()
  await app.close()
  await pool?.end()
  await twin?.close()
  process.exit(0)
}
process.once('SIGTERM', () => { stop().catch(() => process.exit(1)) })
