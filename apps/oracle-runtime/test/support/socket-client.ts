import { io, type Socket } from 'socket.io-client'

export interface Received { event: string, data: any }

export interface Recorder {
  events: Received[]
  /** Resolves with the first event named `event` (matching `where`) received so far or from now on. */
  next: (event: string, where?: (data: any) => boolean, timeoutMs?: number) => Promise<any>
  /** Resolves when nothing matching has arrived for `ms` (asserts an absence). */
  none: (event: string, ms: number) => Promise<void>
}

function recorder (): Recorder & { push: (event: string, data: unknown) => void } {
  const events: Received[] = []
  const waiters = new Set<{ event: string, where: (data: any) => boolean, resolve: (data: any) => void }>()
  return {
    events,
    push (event, data) {
      events.push({ event, data })
      for (const waiter of waiters) {
        if (waiter.event === event && waiter.where(data)) { waiters.delete(waiter); waiter.resolve(data) }
      }
    },
    async next (event, where = () => true, timeoutMs = 5000) {
      const seen = events.find((e) => e.event === event && where(e.data))
      if (seen !== undefined) return seen.data
      return await new Promise((resolve, reject) => {
        const waiter = {
          event,
          where,
          resolve: (data: any) => {
            clearTimeout(timer)
            resolve(data)
          }
        }
        const timer = setTimeout(() => {
          waiters.delete(waiter)
          reject(new Error(`no ${event} within ${timeoutMs} ms; got ${events.map((e) => e.event).join(', ')}`))
        }, timeoutMs)
        waiters.add(waiter)
      })
    },
    async none (event, ms) {
      const before = events.filter((e) => e.event === event).length
      await new Promise((resolve) => setTimeout(resolve, ms))
      const after = events.filter((e) => e.event === event).length
      if (after !== before) {
        throw new Error(`unexpected ${event}: ${JSON.stringify(events.filter((e) => e.event === event).at(-1)?.data)}`)
      }
    }
  }
}

export type TestSocket = Socket & Recorder

/**
 * A socket.io v4 client as the oracle SDK opens it (websocket transport, `sessionId` + `userDid` query, auth
 * object).
 */
export function openSocket (
  base: string,
  options: { sessionId?: string, auth?: Record<string, unknown>, userDid?: string }
): TestSocket {
  const query: Record<string, string> = {}
  if (options.sessionId !== undefined) query.sessionId = options.sessionId
  if (options.userDid !== undefined) query.userDid = options.userDid
  const socket = io(base, {
    transports: ['websocket'],
    query,
    auth: options.auth ?? {},
    forceNew: true,
    reconnection: false,
    timeout: 5000
  })
  const record = recorder()
  socket.onAny((event: string, data: unknown) => {
    record.push(event, data)
  })
  socket.on('connect_error', (err: Error & { data?: unknown }) => {
    record.push('connect_error', { message: err.message, data: err.data })
  })
  socket.on('disconnect', (reason) => {
    record.push('disconnect', { reason })
  })
  return Object.assign(socket, { events: record.events, next: record.next, none: record.none })
}

/** Opens a socket and waits for the server's `connected`. */
export async function connectSocket (base: string, options: Parameters<typeof openSocket>[1]): Promise<TestSocket> {
  const socket = openSocket(base, options)
  await Promise.race([
    socket.next('connected'),
    socket.next('connect_error').then((err) => { throw new Error(`refused: ${JSON.stringify(err)}`) })
  ])
  return socket
}

/** A plain-WebSocket client of `/ws` (frames `{ event, data }`), with the same recorder. */
export function openWs (base: string, path: string, headers?: Record<string, string>) {
  const url = base.replace(/^http/, 'ws') + path
  const ws = new WebSocket(url, headers !== undefined ? { headers } as never : undefined)
  const record = recorder()
  const closed = new Promise<{ code: number, reason: string }>((resolve) => {
    ws.addEventListener('close', (event) => { resolve({ code: event.code, reason: event.reason }) })
  })
  ws.addEventListener('message', (message) => {
    const { event, data } = JSON.parse(String(message.data)) as { event: string, data: unknown }
    record.push(event, data)
  })
  const opened = new Promise<void>((resolve, reject) => {
    ws.addEventListener('open', () => { resolve() })
    ws.addEventListener('error', () => { reject(new Error('websocket failed to open')) })
  })
  return {
    ws,
    opened,
    closed,
    events: record.events,
    next: record.next,
    none: record.none,
    send: (event: string, data?: unknown, id?: string | number) => {
      ws.send(JSON.stringify({ event, data, ...(id !== undefined ? { id } : {}) }))
    }
  }
}
