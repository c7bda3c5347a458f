// chain-rest-gateway throughput against baselines measured in the same run:
//  1. gateway (cache off, every request transcoded and sent to the node) vs direct grpc-js calls
//     of the same method on the same node — target ≥ 0.6×;
//  2. gateway with the cache on (hits) vs a bare Fastify route answering the same body — target ≥ 0.8×;
//  3. gateway (cache off) balancing two nodes vs direct grpc-js calls spread over the same two nodes.
// The node, the gateways and the bare route each run in their own process; load comes from here.
import { writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as grpc from '@grpc/grpc-js'
import { load, ratio, report } from '../lib.ts'
import { freePort } from '../lib.ts'
import { cpus, startProcess, stopAll, waitForHttp } from './processes.ts'

/** Baseline and candidate alternate in short rounds, so background load on the machine hits both alike. */
const ROUNDS = 3
const ROUND_S = 3
const CONNECTIONS = 50
const ENTITY = 'did:ixo:entity:0000000000000000000000000000e003'
const METHOD = '/ixo.entity.v1beta1.Query/Entity'

/** QueryEntityRequest { string id = 1 } encoded by hand: the baseline pays nothing for encoding. */
function entityRequest (id: string): Buffer {
  const bytes = Buffer.from(id, 'utf8')
  return Buffer.concat([Buffer.from([0x0a, bytes.length]), bytes])
}

interface Sample { requestsPerSec: number, errors: number, non2xx?: number, p50?: number, p99?: number }

async function alternate (baseline: () => Promise<Sample>, candidate: () => Promise<Sample>) {
  const a: Sample[] = []
  const b: Sample[] = []
  for (let round = 0; round < ROUNDS; round++) {
    a.push(await baseline())
    b.push(await candidate())
  }
  const mean = (samples: Sample[]) => samples.reduce((sum, s) => sum + s.requestsPerSec, 0) / samples.length
  const errors = (samples: Sample[]) => samples.reduce((sum, s) => sum + s.errors + (s.non2xx ?? 0), 0)
  return { baseline: mean(a), candidate: mean(b), errors: errors(a) + errors(b), last: b[b.length - 1]! }
}

/** Direct calls from CONNECTIONS workers, spread round-robin over `addresses` (one channel each). */
async function directGrpc (addresses: string[], seconds: number): Promise<Sample> {
  const clients = addresses.map((address) => new grpc.Client(address, grpc.credentials.createInsecure()))
  const request = entityRequest(ENTITY)
  const identity = (value: Buffer) => value
  let turn = 0
  const call = async () =>
    await new Promise<void>((resolve, reject) => {
      const client = clients[turn++ % clients.length]!
      client.makeUnaryRequest(METHOD, identity, identity, request, new grpc.Metadata(), {}, (error) =>
        error !== null ? reject(error) : resolve()
      )
    })
  for (let i = 0; i < clients.length; i++) await call()
  let done = 0
  let errors = 0
  const end = Date.now() + seconds * 1000
  await Promise.all(Array.from({ length: CONNECTIONS }, async () => {
    while (Date.now() < end) {
      try {
        await call()
        done++
      } catch {
        errors++
      }
    }
  }))
  for (const client of clients) client.close()
  return { requestsPerSec: done / seconds, errors }
}

async function startNode (): Promise<string> {
  const port = await freePort()
  await startProcess(
    'apps/chain-rest-gateway/src/dev-node/server.ts',
    { PORT: String(port), NODE_ENV: 'development', DEV_CHAIN_BLOCK_MS: '0' },
    (line) => line.includes('listening on'),
    cpus.node
  )
  return `127.0.0.1:${port}`
}

async function main () {
  const nodeUrl = await startNode()
  const secondNodeUrl = await startNode()

  const gateway = async (cache: boolean, nodes = nodeUrl) => {
    const port = await freePort()
    startProcess(
      'apps/chain-rest-gateway/src/server.ts',
      {
        PORT: String(port),
        CHAIN_GRPC_URL: nodes,
        CHAIN_CACHE_ENABLED: String(cache),
        CHAIN_CACHE_LATEST_TTL_MS: '600000',
        CHAIN_HEALTH_INTERVAL_MS: '0',
        RATE_LIMIT_MAX: '1000000'
      },
      () => false,
      cache ? cpus.server : cpus.transcodingGateway
    ).catch(() => {})
    await waitForHttp(`http://127.0.0.1:${port}/health/live`)
    return `http://127.0.0.1:${port}/ixo/entity/${ENTITY}`
  }
  // Started without waiting for a log line: the gateway logs at warn, so readiness is probed over HTTP.
  const uncachedUrl = await gateway(false)
  const cachedUrl = await gateway(true)
  const balancedUrl = await gateway(false, `${nodeUrl},${secondNodeUrl}`)

  const body = await (await fetch(cachedUrl)).text()
  const bodyFile = join(tmpdir(), `chain-bench-body-${process.pid}.json`)
  writeFileSync(bodyFile, body)
  const barePort = await freePort()
  await startProcess(
    'bench/chain-rest-gateway/bare-server.ts',
    { PORT: String(barePort), BODY_FILE: bodyFile },
    (line) => line === 'ready',
    cpus.server
  )
  const bareUrl = `http://127.0.0.1:${barePort}/ixo/entity/${ENTITY}`

  const options = { connections: CONNECTIONS, duration: ROUND_S }
  await load({ url: uncachedUrl, ...options, duration: 1 })
  await directGrpc([nodeUrl], 1)
  const transcoding = await alternate(
    async () => await directGrpc([nodeUrl], ROUND_S),
    async () => await load({ url: uncachedUrl, ...options })
  )
  await load({ url: cachedUrl, ...options, duration: 1 })
  await load({ url: bareUrl, ...options, duration: 1 })
  const cachedRun = await alternate(
    async () => await load({ url: bareUrl, ...options }),
    async () => await load({ url: cachedUrl, ...options })
  )

  await load({ url: balancedUrl, ...options, duration: 1 })
  const both = [nodeUrl, secondNodeUrl]
  const balanced = await alternate(
    async () => await directGrpc(both, ROUND_S),
    async () => await load({ url: balancedUrl, ...options })
  )

  const transcodeRatio = ratio(transcoding.candidate, transcoding.baseline)
  const balancedRatio = ratio(balanced.candidate, balanced.baseline)
  const cacheRatio = ratio(cachedRun.candidate, cachedRun.baseline)
  report(
    `chain-rest-gateway: GET /ixo/entity/{id} (${body.length} B JSON), ${CONNECTIONS} connections, ` +
      `${ROUNDS} alternating rounds of ${ROUND_S}s, ${cpus.describe}`,
    [
      ['direct grpc-js Entity calls/s (baseline 1)', transcoding.baseline],
      ['gateway, cache off req/s', transcoding.candidate],
      [
        'gateway, cache off p50 / p99 ms (last round)',
        `${transcoding.last.p50 ?? '-'} / ${transcoding.last.p99 ?? '-'}`
      ],
      ['bare Fastify route req/s (baseline 2)', cachedRun.baseline],
      ['gateway, cache on req/s', cachedRun.candidate],
      ['gateway, cache on p50 / p99 ms (last round)', `${cachedRun.last.p50 ?? '-'} / ${cachedRun.last.p99 ?? '-'}`],
      ['direct grpc-js over two nodes calls/s (baseline 3)', balanced.baseline],
      ['gateway balancing two nodes, cache off req/s', balanced.candidate],
      ['errors + non-2xx', transcoding.errors + cachedRun.errors + balanced.errors],
      ['ratio gateway / direct grpc-js (target ≥ 0.6)', transcodeRatio],
      ['ratio cached gateway / bare Fastify (target ≥ 0.8)', cacheRatio],
      ['ratio balanced gateway / direct grpc-js over two nodes', balancedRatio]
    ]
  )
  process.stdout.write(
    `\n${transcodeRatio >= 0.6 ? 'PASS' : 'FAIL'} transcoding ratio ${transcodeRatio.toFixed(2)} (≥ 0.6)\n`
  )
  process.stdout.write(`${cacheRatio >= 0.8 ? 'PASS' : 'FAIL'} cached ratio ${cacheRatio.toFixed(2)} (≥ 0.8)\n`)
}

try {
  await main()
} finally {
  stopAll()
}
