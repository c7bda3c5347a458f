// ussd-gateway throughput against baselines measured in the same run, with production settings
// (NODE_ENV=production, LOG_LEVEL=warn, rate limits on):
//  1. a hop on a live session (one of LIVE_SESSIONS held at the email/PIN prompts) vs a bare Fastify
//     route answering a fixed text; target >= 0.8x;
//  2. a first dial (new session, new phone) vs the bare route plus the one indexed read a first dial
//     needs, on embedded defaults (PGlite in process); target >= 0.5x;
//  3. the same on PostgreSQL when DATABASE_URL is set; target >= 0.5x;
//  4. a hop on a live session with metrics on (scraped once per round) vs off (METRICS_PORT=0); target >= 0.95x;
//  5. RSS per live session, from MEMORY_SESSIONS sessions held by a fresh gateway.
// `npm run bench:ussd -- --metrics-only` runs pair 4 alone.
// Each server runs in its own process; load (autocannon) comes from this one. A pair's rounds run
// back to back with every other server stopped (SIGSTOP), in alternating order, and each cycle gives
// one ratio per pair; the reported ratio is the median over the cycles, robust to one slow spell.
import { fork, type ChildProcess } from 'node:child_process'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import type autocannon from 'autocannon'
import { Agent, request as send } from 'undici'
import { load, ratio, report, type LoadResult } from '../lib.ts'
import { DEPTH_3, MAIN_MENU, nextInput, screenAfter, sessionFields } from './workload.ts'

const CYCLES = 5
const WARM_UP_S = 1
const ROUND_S = 3
const CONNECTIONS = 50
const METRICS_ONLY = process.argv.includes('--metrics-only')
// Alone, the metrics pair holds fewer sessions: it compares two gateways, and preparing them dominates the run.
const LIVE_SESSIONS = METRICS_ONLY ? 2_000 : 20_000
const MEMORY_SESSIONS = 10_000
const POSTGRES_URL = process.env.DATABASE_URL
// The same for every server: V8 would otherwise shrink the heap of a process stopped between rounds.
const NODE_FLAGS = ['--conditions=@impact/source', '--no-warnings', '--no-memory-reducer']
const FORM = 'application/x-www-form-urlencoded'
const children: ChildProcess[] = []

interface Server { url: string, pid: number, call: (cmd: string) => Promise<unknown> }

async function start (target: 'bare' | 'read' | 'gateway' | 'gateway-unmetered', postgres = false): Promise<Server> {
  const env = { ...process.env }
  delete env.REDIS_URL
  if (!postgres) delete env.DATABASE_URL
  const child = fork(fileURLToPath(new URL('./child.ts', import.meta.url)), [target], {
    execArgv: NODE_FLAGS,
    env,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc']
  })
  children.push(child)
  const waiting = new Map<string, (value: unknown) => void>()
  const ready = new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${target} exited with ${code}`)))
    waiting.set('ready', (value) => resolve(String(value)))
  })
  child.on('message', (message: { cmd: string, value: unknown }) => {
    const resolve = waiting.get(message.cmd)
    waiting.delete(message.cmd)
    resolve?.(message.value)
  })
  const url = await ready
  const call = async (cmd: string) => await new Promise((resolve, reject) => {
    waiting.set(cmd, (value) => {
      if (typeof value === 'object' && value !== null && 'error' in value) reject(new Error(String(value.error)))
      else resolve(value)
    })
    child.send({ cmd })
  })
  return { url, pid: child.pid ?? 0, call }
}

const form = (i: number, text: string) => new URLSearchParams(sessionFields(i, text)).toString()

// Set-up traffic goes over real HTTP, as an aggregator's would.
const preparer = new Agent({ connections: 64 })
async function post (url: string, path: string, payload: string, type = FORM): Promise<string> {
  const res = await send(`${url}${path}`, {
    dispatcher: preparer,
    method: 'POST',
    headers: { 'content-type': type },
    body: payload
  })
  return await res.body.text()
}

async function forEach (from: number, to: number, work: (i: number) => Promise<void>) {
  let next = from
  await Promise.all(Array.from({ length: 64 }, async () => {
    for (let i = next++; i < to; i = next++) await work(i)
  }))
}

/** Sessions `from`..`to` opened and walked to the email prompt (depth 3). */
async function prepare (url: string, from: number, to: number) {
  await forEach(from, to, async (i) => {
    for (const text of ['2*2', DEPTH_3]) {
      const reply = await post(url, '/api/ussd', form(i, text))
      if (!reply.startsWith('CON ')) throw new Error(`unexpected reply ${reply}`)
    }
  })
}

/** Sessions `from`..`to` ended through the aggregator's end-of-session notification. */
async function free (url: string, from: number, to: number) {
  await forEach(from, to, async (i) => {
    const { sessionId, phoneNumber } = sessionFields(i, '')
    await post(
      url,
      '/api/ussd/events',
      JSON.stringify({ sessionId, phoneNumber, status: 'Success' }),
      'application/json'
    )
  })
}

/** What a round sends: `next` builds each request's body; `check` runs after the round. */
interface Workload { next: () => string, check?: () => Promise<void> }

/**
 * LIVE_SESSIONS live sessions, hopped round robin between the email and PIN prompts. Without a `url`
 * the same bodies, for a baseline (which keeps no sessions).
 */
function liveSessions (url: string | undefined) {
  let base = 0
  let cursor = 0
  const texts: string[] = []
  const hops = new Int32Array(LIVE_SESSIONS)
  return {
    async renew () {
      if (url !== undefined && texts.length > 0) await free(url, base, base + LIVE_SESSIONS)
      base += LIVE_SESSIONS
      if (url !== undefined) await prepare(url, base, base + LIVE_SESSIONS)
      texts.length = 0
      texts.push(...Array.from({ length: LIVE_SESSIONS }, () => DEPTH_3))
      hops.fill(0)
    },
    workload: {
      next () {
        const i = cursor++ % LIVE_SESSIONS
        const done = hops[i] ?? 0
        hops[i] = done + 1
        texts[i] = `${texts[i] ?? DEPTH_3}*${nextInput(done)}`
        return form(base + i, texts[i])
      },
      // A retry replays the last screen: a session the load left in the wrong state shows here.
      async check () {
        if (url === undefined) return
        for (const i of [0, 1, 2, LIVE_SESSIONS - 1]) {
          const hopsDone = hops[i] ?? 0
          if (hopsDone === 0) continue
          const reply = await post(url, '/api/ussd', form(base + i, texts[i] ?? ''))
          if (reply !== screenAfter(hopsDone - 1)) throw new Error(`session ${i} answered ${JSON.stringify(reply)}`)
        }
      }
    } satisfies Workload
  }
}

/** New sessions from new phones; the gateway's sessions are ended between cycles. */
function firstDials (url: string | undefined) {
  const from = 50_000_000
  let cursor = from
  let freed = from
  return {
    async renew () {
      if (url !== undefined) await free(url, freed, cursor)
      freed = cursor
    },
    workload: { next: () => form(cursor++, '') } satisfies Workload
  }
}

interface Round extends LoadResult { cpuPerRequest: number }

async function round (server: Server, all: Server[], workload: Workload): Promise<Round> {
  const others = all.filter((other) => other !== server)
  for (const other of others) process.kill(other.pid, 'SIGSTOP')
  try {
    const request: autocannon.Request = {
      method: 'POST',
      path: '/api/ussd',
      headers: { 'content-type': FORM },
      setupRequest: (req) => ({ ...req, body: workload.next() })
    }
    await load({ url: server.url, connections: CONNECTIONS, duration: WARM_UP_S, requests: [request] })
    const before = await server.call('cpu') as number
    // A metered server is scraped halfway through, as Prometheus would (more often than its usual 15 s).
    const metricsUrl = await server.call('metrics') as string | null
    const scrape = metricsUrl === null
      ? undefined
      : sleep(ROUND_S * 500).then(async () => await (await send(metricsUrl, { dispatcher: preparer })).body.text())
    const result = await load({ url: server.url, connections: CONNECTIONS, duration: ROUND_S, requests: [request] })
    await scrape
    const after = await server.call('cpu') as number
    await workload.check?.()
    return { ...result, cpuPerRequest: (after - before) / Math.max(1, result.requestsPerSec * ROUND_S) }
  } finally {
    for (const other of others) process.kill(other.pid, 'SIGCONT')
  }
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle] ?? 0 : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2
}
const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / Math.max(1, values.length)

interface Pair {
  title: string
  target: number
  baseline: { name: string, server: Server, workload: Workload, rounds: Round[] }
  gateway: { server: Server, workload: Workload, rounds: Round[] }
  renew: () => Promise<void>
}

function rows (pair: Pair): Array<[string, string | number]> {
  const { baseline, gateway } = pair
  const ratios = gateway.rounds.map((own, i) => ratio(own.requestsPerSec, baseline.rounds[i]?.requestsPerSec ?? 0))
  const cpuRatios = gateway.rounds.map((own, i) => ratio(baseline.rounds[i]?.cpuPerRequest ?? 0, own.cpuPerRequest))
  const rate = (rounds: Round[]) => mean(rounds.map((r) => r.requestsPerSec))
  const latency = (rounds: Round[]) => rounds.map((r) => `${r.p50}/${r.p99}`).join('  ')
  const failures = [...baseline.rounds, ...gateway.rounds].reduce((sum, r) => sum + r.errors + r.non2xx, 0)
  return [
    [`${baseline.name} (req/s)`, rate(baseline.rounds)],
    ['ussd-gateway (req/s)', rate(gateway.rounds)],
    [`ratio, median of cycles (target >= ${pair.target})`, median(ratios)],
    ['ratio per cycle', ratios.map((value) => value.toFixed(2)).join('  ')],
    ['CPU-based ratio, median of cycles', median(cpuRatios)],
    [
      `server CPU per request, ${baseline.name} / gateway (us)`,
      [baseline, gateway].map((side) => mean(side.rounds.map((r) => r.cpuPerRequest)).toFixed(1)).join(' / ')
    ],
    [`p50/p99 ms per round, ${baseline.name}`, latency(baseline.rounds)],
    ['p50/p99 ms per round, gateway', latency(gateway.rounds)],
    ['errors + non-2xx', failures]
  ]
}

async function memoryPerSession () {
  const fresh = await start('gateway')
  // A first batch warms the allocator and is freed; the growth from a second batch is what sessions cost.
  await prepare(fresh.url, 0, MEMORY_SESSIONS)
  await free(fresh.url, 0, MEMORY_SESSIONS)
  const before = await fresh.call('memory') as { rss: number, heapUsed: number }
  await prepare(fresh.url, MEMORY_SESSIONS, 2 * MEMORY_SESSIONS)
  const after = await fresh.call('memory') as { rss: number, heapUsed: number }
  await fresh.call('stop')
  return { rss: (after.rss - before.rss) / MEMORY_SESSIONS, heap: (after.heapUsed - before.heapUsed) / MEMORY_SESSIONS }
}

/** A hop on a live session of a metered gateway against one with METRICS_PORT=0. */
async function metricsPair (): Promise<{ pair: Pair, servers: Server[] }> {
  const [metered, unmetered] = await Promise.all([start('gateway'), start('gateway-unmetered')])
  const on = liveSessions(metered.url)
  const off = liveSessions(unmetered.url)
  return {
    servers: [metered, unmetered],
    pair: {
      title: `hop on a live session (${LIVE_SESSIONS} live), metrics on vs off (METRICS_PORT=0)`,
      target: 0.95,
      baseline: { name: 'metrics off', server: unmetered, workload: off.workload, rounds: [] },
      gateway: { server: metered, workload: on.workload, rounds: [] },
      renew: async () => { await Promise.all([on.renew(), off.renew()]) }
    }
  }
}

async function allPairs (): Promise<{ pairs: Pair[], servers: Server[] }> {
  const [bare, hopGateway, read, dialGateway] = await Promise.all([
    start('bare'), start('gateway'), start('read'), start('gateway')
  ])
  const postgres =
    POSTGRES_URL === undefined ? undefined : { gateway: await start('gateway', true), read: await start('read', true) }
  const metered = await metricsPair()
  const servers = [
    bare,
    hopGateway,
    read,
    dialGateway,
    ...(postgres !== undefined ? [postgres.gateway, postgres.read] : []),
    ...metered.servers
  ]

  const live = liveSessions(hopGateway.url)
  const mirror = liveSessions(undefined)
  const dials = firstDials(dialGateway.url)
  const pairs: Pair[] = [{
    title: `hop on a live session (${LIVE_SESSIONS} live), vs a bare Fastify route`,
    target: 0.8,
    baseline: { name: 'bare Fastify', server: bare, workload: mirror.workload, rounds: [] },
    gateway: { server: hopGateway, workload: live.workload, rounds: [] },
    renew: async () => { await Promise.all([live.renew(), mirror.renew()]) }
  }, {
    title: 'first dial, embedded (PGlite), vs bare Fastify + one indexed read',
    target: 0.5,
    baseline: { name: 'bare Fastify + read', server: read, workload: firstDials(undefined).workload, rounds: [] },
    gateway: { server: dialGateway, workload: dials.workload, rounds: [] },
    renew: dials.renew
  }]
  if (postgres !== undefined) {
    const pgDials = firstDials(postgres.gateway.url)
    pairs.push({
      title: 'first dial, PostgreSQL, vs bare Fastify + one indexed read',
      target: 0.5,
      baseline: {
        name: 'bare Fastify + read',
        server: postgres.read,
        workload: firstDials(undefined).workload,
        rounds: []
      },
      gateway: { server: postgres.gateway, workload: pgDials.workload, rounds: [] },
      renew: pgDials.renew
    })
  }
  pairs.push(metered.pair)
  return { pairs, servers }
}

try {
  const memory = METRICS_ONLY ? undefined : await memoryPerSession()
  const { pairs, servers } = METRICS_ONLY
    ? await metricsPair().then(({ pair, servers }) => ({ pairs: [pair], servers }))
    : await allPairs()
  for (const reply of await Promise.all(
    servers.map(async (server) => await post(server.url, '/api/ussd', form(1, '')))
  )) {
    if (reply !== MAIN_MENU) throw new Error(`a server answered ${JSON.stringify(reply)}`)
  }

  // Cycle -1 warms every server alike and is not recorded.
  for (let cycle = -1; cycle < CYCLES; cycle++) {
    for (const pair of pairs) await pair.renew()
    await Promise.all(servers.map(async (server) => await server.call('gc')))
    for (const pair of pairs) {
      const order = cycle % 2 === 0 ? [pair.baseline, pair.gateway] : [pair.gateway, pair.baseline]
      for (const side of order) {
        const result = await round(side.server, servers, side.workload)
        if (cycle >= 0) side.rounds.push(result)
      }
    }
  }
  await Promise.all(servers.map(async (server) => await server.call('stop')))

  const settings = `${CYCLES} cycles of ${ROUND_S} s rounds, ${CONNECTIONS} connections`
  for (const pair of pairs) report(`ussd-gateway: ${pair.title}; ${settings}`, rows(pair))
  if (POSTGRES_URL === undefined && !METRICS_ONLY) {
    process.stdout.write('\n(first dial on PostgreSQL: set DATABASE_URL to measure)\n')
  }
  if (memory !== undefined) {
    report(`ussd-gateway: memory of ${MEMORY_SESSIONS} live sessions (in-process sessions, embedded database)`, [
      ['RSS per live session (bytes)', memory.rss],
      ['JS heap per live session (bytes)', memory.heap]
    ])
  }
} finally {
  await preparer.close()
  for (const child of children) if (child.exitCode === null) child.kill('SIGTERM')
}
