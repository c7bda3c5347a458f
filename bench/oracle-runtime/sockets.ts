// Oracle runtime WebSocket benchmark: how many idle socket.io connections one process holds and
// at what memory (target < 250 MB RSS at 2,000), how fast handshakes are admitted, and the
// latency of an event from the runtime bus to the client, fanned out to 1 and to 100 sockets of a
// session. Each server runs alone in a child process (its RSS is its own); the clients run here.
// Baseline: bare socket.io on a plain HTTP server in the same conditions. Traffic stays on 127.0.0.1.
import { execSync, fork, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { io, type Socket } from 'socket.io-client'
import { request } from 'undici'
import { formatSigner, generateSigner, mintInvocation } from '@impact/ucan'
import { ratio, report } from '../lib.ts'
import { preciseNow, type Command, type Report, type ServerKind, type Shared } from './socket-servers.ts'

const IDLE = 2000
const USERS = 20
const SESSIONS_PER_USER = 25
const FANOUT = 100
const EVENTS_SINGLE = 300
const EVENTS_FANOUT = 100
const HANDSHAKE_CONCURRENCY = 100
const MB = 1024 * 1024

const fdLimit = Number(execSync('ulimit -n', { shell: '/bin/sh' }).toString().trim())
const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0
}

/** A server child and a typed request/answer channel to it. */
async function startServer (kind: ServerKind, oracleKey: string, joining?: Shared) {
  const args = ['--serve', kind, oracleKey, ...(joining !== undefined ? [JSON.stringify(joining)] : [])]
  const child: ChildProcess = fork(fileURLToPath(new URL('./socket-servers.ts', import.meta.url)), args, {
    execArgv: [...process.execArgv, '--expose-gc'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc']
  })
  const waiting = new Map<string, (report: Report) => void>()
  child.on('message', (message: Report) => {
    const key = message.type === 'published' ? `published:${message.seq}` : message.type
    const resolve = waiting.get(key)
    waiting.delete(key)
    resolve?.(message)
  })
  const answer = async <T extends Report['type']>(
    key: string,
    command?: Command
  ): Promise<Extract<Report, { type: T }>> => {
    const reply = new Promise<Report>((resolve) => {
      waiting.set(key, resolve)
    })
    if (command !== undefined) child.send(command)
    return (await reply) as Extract<Report, { type: T }>
  }
  const ready = await answer<'ready'>('ready')
  return {
    ...ready,
    stats: async () => await answer<'stats'>('stats', { type: 'stats' }),
    publish: async (sessionId: string, seq: number) =>
      await answer<'published'>(`published:${seq}`, { type: 'publish', sessionId, seq }),
    /** Child clock minus ours, from the exchange with the shortest round trip (error <= half of it). */
    async clockOffset () {
      let best = { rtt: Infinity, offset: 0 }
      for (let i = 0; i < 30; i++) {
        const sent = preciseNow()
        const { childNow } = await answer<'clock'>('clock', { type: 'clock', parentNow: sent })
        const back = preciseNow()
        if (back - sent < best.rtt) best = { rtt: back - sent, offset: childNow - (sent + back) / 2 }
      }
      return best
    },
    async stop () {
      const stopped = answer('stopped', { type: 'stop' })
      await Promise.race([stopped, new Promise((resolve) => setTimeout(resolve, 10_000))])
      child.kill()
    }
  }
}

async function openClient (port: number, sessionId: string, auth: Record<string, string>): Promise<Socket> {
  const socket = io(`http://127.0.0.1:${port}`, {
    transports: ['websocket'],
    query: { sessionId },
    auth,
    forceNew: true,
    reconnection: false,
    timeout: 20_000
  })
  return await new Promise((resolve, reject) => {
    socket.once('connected', () => { resolve(socket) })
    socket.once('connect_error', (err) => { reject(err) })
  })
}

async function pool<T> (count: number, concurrency: number, task: (i: number) => Promise<T>): Promise<T[]> {
  const results: T[] = new Array(count)
  let next = 0
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < count) {
      const i = next++
      results[i] = await task(i)
    }
  }))
  return results
}

type ServerHandle = Awaited<ReturnType<typeof startServer>>

/**
 * Users with an invocation each and sessions they own (the runtime checks both on every handshake);
 * slot i seats connection i.
 */
async function seatingPlan (server: ServerHandle) {
  const base = `http://127.0.0.1:${server.port}`
  const users = await Promise.all(
    Array.from({ length: USERS }, async (): Promise<{ auth: Record<string, string>, sessions: string[] }> => {
      if (server.oracleDid === undefined) {
        return {
          auth: {},
          sessions: Array.from({ length: SESSIONS_PER_USER }, (_, i) => `s_bare_${Math.random()}_${i}`)
        }
      }
      const invocation = await mintInvocation({
        issuer: await generateSigner(),
        audience: server.oracleDid,
        lifetimeSeconds: 900
      })
      const headers = { authorization: `Bearer ${invocation}`, 'x-auth-type': 'ucan' }
      const sessions = await pool(SESSIONS_PER_USER, 5, async () => {
        const res = await request(`${base}/sessions`, { method: 'POST', headers })
        return ((await res.body.json()) as { sessionId: string }).sessionId
      })
      return { auth: { invocation }, sessions }
    })
  )
  return (i: number) => {
    const user = users[i % USERS] as typeof users[number]
    return { auth: user.auth, sessionId: user.sessions[Math.floor(i / USERS) % SESSIONS_PER_USER] as string }
  }
}

/** Two runtime replicas on one database and one Redis: events emitted on A, sockets on B. */
async function measureAcross (oracleKey: string) {
  const a = await startServer('runtime', oracleKey)
  const b = await startServer('runtime', oracleKey, a.shared)
  try {
    const clock = await a.clockOffset()
    const slot = await seatingPlan(a)
    const single = await latencyRun(a, b.port, slot(1), 1, EVENTS_SINGLE, clock.offset)
    const fanout = await latencyRun(a, b.port, slot(2), FANOUT, EVENTS_FANOUT, clock.offset)
    return { single, fanout }
  } finally {
    await b.stop()
    await a.stop()
  }
}

async function measure (kind: ServerKind, oracleKey: string) {
  const server = await startServer(kind, oracleKey)
  const clock = await server.clockOffset()
  const slot = await seatingPlan(server)

  const idle = await server.stats()
  const started = performance.now()
  const sockets = await pool(
    IDLE,
    HANDSHAKE_CONCURRENCY,
    async (i) => await openClient(server.port, slot(i).sessionId, slot(i).auth)
  )
  const handshakesPerSec = IDLE / ((performance.now() - started) / 1000)
  await new Promise((resolve) => setTimeout(resolve, 500))
  const loaded = await server.stats()

  // Latency with the idle connections still open: events published one at a time, each awaited at every
  // receiving socket.
  const single = await latencyRun(server, server.port, slot(IDLE + 1), 1, EVENTS_SINGLE, clock.offset)
  const fanout = await latencyRun(server, server.port, slot(IDLE + 2), FANOUT, EVENTS_FANOUT, clock.offset)

  for (const socket of sockets) socket.disconnect()
  await server.stop()
  return { kind, clock, idle, loaded, handshakesPerSec, single, fanout }
}

/**
 * Publishes `events` one at a time to a session with `receivers` sockets; delays from the child's stamp to each
 * receipt.
 */
async function latencyRun (
  publisher: ServerHandle,
  port: number,
  target: { sessionId: string, auth: Record<string, string> },
  receivers: number,
  events: number,
  offset: number
) {
  const delays: number[] = []
  const slowest: number[] = []
  let current: number[] = []
  const clients = await pool(receivers, 20, async () => {
    const socket = await openClient(port, target.sessionId, target.auth)
    socket.on('render_component', (event: { payload: { args: { sentAt: number } } }) => {
      current.push(preciseNow() + offset - event.payload.args.sentAt)
    })
    return socket
  })
  for (let seq = 0; seq < events; seq++) {
    current = []
    await publisher.publish(target.sessionId, seq)
    while (current.length < receivers) await new Promise((resolve) => setImmediate(resolve))
    delays.push(...current)
    slowest.push(Math.max(...current))
  }
  for (const client of clients) client.disconnect()
  return {
    p50: percentile(delays, 0.5),
    p99: percentile(delays, 0.99),
    slowestP50: percentile(slowest, 0.5),
    slowestP99: percentile(slowest, 0.99)
  }
}

async function run () {
  if (fdLimit < 2 * (IDLE + FANOUT) + 500) {
    throw new Error(`ulimit -n is ${fdLimit}; this bench needs about ${2 * (IDLE + FANOUT) + 500} file descriptors`)
  }
  const oracleKey = formatSigner(await generateSigner())
  const mode =
    process.env.DATABASE_URL !== undefined && process.env.DATABASE_URL !== ''
      ? 'PostgreSQL'
      : 'PGlite (embedded, in the server process)'
  process.stdout.write(
    `oracle-runtime sockets bench: database ${mode}, ` +
      `shared state ${process.env.REDIS_URL !== undefined ? 'Redis' : 'memory'}, ulimit -n ${fdLimit}\n`
  )
  const bare = await measure('bare', oracleKey)
  const runtime = await measure('runtime', oracleKey)
  const perConnection = (m: typeof bare) => (m.loaded.rss - m.idle.rss) / 1024 / IDLE
  const heapPerConnection = (m: typeof bare) => (m.loaded.heapUsed - m.idle.heapUsed) / 1024 / IDLE
  report(`Idle connections: ${IDLE} socket.io clients (websocket), ${USERS} users x ${SESSIONS_PER_USER} sessions`, [
    ['connections held, runtime / bare', `${runtime.loaded.connections} / ${bare.loaded.connections}`],
    [
      'RSS before connections, runtime / bare (MB)',
      `${(runtime.idle.rss / MB).toFixed(1)} / ${(bare.idle.rss / MB).toFixed(1)}`
    ],
    ['RSS at 2,000 connections, runtime (MB, target < 250)', runtime.loaded.rss / MB],
    ['RSS at 2,000 connections, bare socket.io (MB)', bare.loaded.rss / MB],
    ['memory per connection, runtime (KB)', perConnection(runtime)],
    ['memory per connection, bare socket.io (KB)', perConnection(bare)],
    ['ratio per-connection memory runtime/bare', ratio(perConnection(runtime), perConnection(bare))],
    [
      'JS heap per connection, runtime / bare (KB)',
      `${heapPerConnection(runtime).toFixed(2)} / ${heapPerConnection(bare).toFixed(2)}`
    ],
    ['connections per GB at that rate, runtime', Math.floor((1024 * 1024) / perConnection(runtime))],
    ['handshakes/s, runtime (UCAN + session lookup)', runtime.handshakesPerSec],
    ['handshakes/s, bare socket.io', bare.handshakesPerSec],
    ['ratio handshake rate runtime/bare', ratio(runtime.handshakesPerSec, bare.handshakesPerSec)]
  ])
  const row = (label: string, r: typeof runtime.single, b: typeof bare.single): Array<[string, string | number]> => [
    [`${label}: p50 runtime / bare (ms)`, `${r.p50.toFixed(3)} / ${b.p50.toFixed(3)}`],
    [`${label}: p99 runtime / bare (ms)`, `${r.p99.toFixed(3)} / ${b.p99.toFixed(3)}`],
    [`${label}: ratio p50 runtime/bare`, ratio(r.p50, b.p50)]
  ]
  report(
    `Fan-out latency, bus emit to client receipt, with ${IDLE} idle connections open ` +
      `(clock offset ${runtime.clock.offset.toFixed(3)} ms, +/- ${(runtime.clock.rtt / 2).toFixed(3)})`,
    [
      ...row(`1 socket, ${EVENTS_SINGLE} events`, runtime.single, bare.single),
      ...row(`${FANOUT} sockets, ${EVENTS_FANOUT} events, each receipt`, runtime.fanout, bare.fanout),
      [
        `${FANOUT} sockets: slowest receipt p50 / p99, runtime (ms)`,
        `${runtime.fanout.slowestP50.toFixed(3)} / ${runtime.fanout.slowestP99.toFixed(3)}`
      ],
      [
        `${FANOUT} sockets: slowest receipt p50 / p99, bare (ms)`,
        `${bare.fanout.slowestP50.toFixed(3)} / ${bare.fanout.slowestP99.toFixed(3)}`
      ]
    ]
  )
  if (process.env.REDIS_URL !== undefined && process.env.DATABASE_URL !== undefined) {
    const across = await measureAcross(oracleKey)
    report('Across replicas: bus emit on replica A, sockets on replica B (one Redis hop)', [
      ['1 socket: p50 / p99 (ms)', `${across.single.p50.toFixed(3)} / ${across.single.p99.toFixed(3)}`],
      ['ratio p50 across / same replica', ratio(across.single.p50, runtime.single.p50)],
      [
        `${FANOUT} sockets: each receipt p50 / p99 (ms)`,
        `${across.fanout.p50.toFixed(3)} / ${across.fanout.p99.toFixed(3)}`
      ],
      [
        `${FANOUT} sockets: slowest receipt p50 / p99 (ms)`,
        `${across.fanout.slowestP50.toFixed(3)} / ${across.fanout.slowestP99.toFixed(3)}`
      ]
    ])
  }
}

await run()
