// Child process of bench/oracle-runtime/sockets.ts: one server whose memory is measured alone.
// `runtime` is the oracle runtime (UCAN handshake, session check, event core); `bare` is socket.io
// on a plain HTTP server doing the least a gateway can (join the room from the query), the baseline.
// The parent drives it over IPC: stats (after a GC), publish (one event to a session), stop.
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Server } from 'socket.io'

export type ServerKind = 'runtime' | 'bare'
export type Command =
  | { type: 'stats' }
  | { type: 'publish', sessionId: string, seq: number }
  | { type: 'clock', parentNow: number }
  | { type: 'stop' }
export type Report =
  | { type: 'ready', port: number, oracleDid?: string, pid: number, shared?: Shared }
  | { type: 'stats', rss: number, heapUsed: number, external: number, connections: number }
  | { type: 'clock', parentNow: number, childNow: number }
  | { type: 'published', seq: number }
  | { type: 'stopped' }

/** What a second replica needs to join the first: its database and shared-state namespace. */
export interface Shared { env: Record<string, string>, prefix: string }

/** Wall-clock milliseconds with sub-millisecond resolution, comparable between processes on one machine. */
export const preciseNow = () => performance.timeOrigin + performance.now()

const send = (report: Report) => {
  process.send?.(report)
}
const envelope = (sessionId: string, seq: number) => ({
  componentName: 'Bench',
  args: { seq, sentAt: preciseNow() },
  status: 'done',
  eventId: `e${seq}`
})

async function runtimeServer (oracleKey: string, joining?: Shared) {
  // Loaded here only, so the bare baseline's memory carries none of the runtime's modules.
  const { createHarness } = await import('../../apps/oracle-runtime/test/support/harness.ts')
  // A second replica uses the first one's database and namespace, and leaves their cleanup to it.
  const shared = joining !== undefined ? { database: { env: joining.env }, prefix: joining.prefix } : undefined
  const h = await createHarness({ ORACLE_PRIVATE_KEY: oracleKey, REALTIME_MAX_CONNECTIONS: '10000' }, {}, shared)
  const port = Number(new URL(await h.app.listen({ host: '127.0.0.1', port: 0 })).port)
  return {
    port,
    oracleDid: h.oracleDid,
    shared: { env: h.shared.database.env, prefix: h.shared.prefix },
    connections: () => h.runtime.realtime.stats().totalConnections,
    publish: (sessionId: string, seq: number) => {
      const data = envelope(sessionId, seq)
      const requestId = `bench-${seq}`
      h.runtime.bus.publish({ name: 'render_component', sessionId, requestId, did: 'did:key:bench', data })
    },
    stop: async () => { await h.close() }
  }
}

async function bareServer () {
  const http = createServer()
  const io = new Server(http, { path: '/socket.io/', transports: ['websocket'], serveClient: false })
  io.on('connection', (socket) => {
    const sessionId = String(socket.handshake.query.sessionId)
    socket.join(sessionId)?.catch(() => {})
    socket.emit('connected', { message: 'Connected successfully', sessionId, timestamp: new Date().toISOString() })
  })
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
  return {
    port: (http.address() as AddressInfo).port,
    oracleDid: undefined,
    shared: undefined,
    connections: () => io.engine.clientsCount,
    publish: (sessionId: string, seq: number) => {
      io.to(sessionId).emit('render_component', {
        eventName: 'render_component',
        payload: { ...envelope(sessionId, seq), sessionId, requestId: `bench-${seq}` }
      })
    },
    stop: async () => {
      io.engine.close()
      http.closeAllConnections()
      await new Promise((resolve) => http.close(resolve))
    }
  }
}

if (process.argv[2] === '--serve') {
  const kind = process.argv[3] as ServerKind
  const joining = process.argv[5] !== undefined ? JSON.parse(process.argv[5]) as Shared : undefined
  const server = kind === 'runtime' ? await runtimeServer(process.argv[4] as string, joining) : await bareServer()
  process.on('message', (command: Command) => {
    if (command.type === 'stats') {
      globalThis.gc?.()
      const memory = process.memoryUsage()
      send({
        type: 'stats',
        rss: memory.rss,
        heapUsed: memory.heapUsed,
        external: memory.external,
        connections: server.connections()
      })
    } else if (command.type === 'clock') {
      send({ type: 'clock', parentNow: command.parentNow, childNow: preciseNow() })
    } else if (command.type === 'publish') {
      server.publish(command.sessionId, command.seq)
      send({ type: 'published', seq: command.seq })
    } else {
      server.stop().finally(() => {
        send({ type: 'stopped' })
        process.disconnect()
      })
    }
  })
  send({
    type: 'ready',
    port: server.port,
    pid: process.pid,
    ...(server.oracleDid !== undefined ? { oracleDid: server.oracleDid, shared: server.shared } : {})
  })
}
