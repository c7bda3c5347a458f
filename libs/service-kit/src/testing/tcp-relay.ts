import { connect, createServer, type Socket } from 'node:net'

export interface TcpRelay {
  readonly port: number
  /** `url` with its host and port replaced by the relay's, so a client connects through it. */
  through: (url: string) => string
  /** Resets every open connection (TCP RST), as a failover or a dying proxy does; new ones are accepted. */
  reset: () => void
  /** Resets every open connection and refuses new ones until `restore`. */
  cut: () => void
  restore: () => void
  /**
   * Arms the relay to lose the reply to the next request holding `request` (e.g. `insert into "accounts"`):
   * when the server's reply holding `reply` (e.g. `INSERT 0 1`) arrives, the client's connection is reset
   * instead. The server did the work; the client hears only that its connection died. Resolves then.
   */
  loseReply: (request: string, reply: string) => Promise<void>
  close: () => Promise<void>
}

interface Armed { request: string, reply: string, lost: () => void }

/** A TCP relay on loopback in front of a backing service (PostgreSQL, Redis) that a test can break. */
export async function startTcpRelay (target: { host: string, port: number }): Promise<TcpRelay> {
  const sockets = new Set<Socket>()
  let up = true
  let armed: Armed | undefined
  const server = createServer((client) => {
    if (!up) {
      client.resetAndDestroy()
      return
    }
    const upstream = connect(target.port, target.host)
    for (const socket of [client, upstream]) {
      sockets.add(socket)
      socket.on('error', () => {})
      socket.on('close', () => { sockets.delete(socket) })
    }
    let doomed: Armed | undefined
    client.on('data', (chunk: Buffer) => {
      if (armed !== undefined && chunk.includes(armed.request)) [doomed, armed] = [armed, undefined]
      upstream.write(chunk)
    })
    upstream.on('data', (chunk: Buffer) => {
      if (doomed === undefined || !chunk.includes(doomed.reply)) {
        client.write(chunk)
        return
      }
      client.resetAndDestroy()
      upstream.destroy()
      doomed.lost()
    })
    client.on('end', () => upstream.end())
    upstream.on('end', () => client.end())
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  const port = typeof address === 'object' && address !== null ? address.port : 0
  const reset = () => { for (const socket of sockets) socket.resetAndDestroy() }
  return {
    port,
    through: (url) => {
      const parsed = new URL(url)
      parsed.host = `127.0.0.1:${port}`
      return parsed.toString()
    },
    reset,
    cut: () => {
      up = false
      reset()
    },
    restore: () => { up = true },
    loseReply: async (request, reply) => {
      await new Promise<void>((resolve) => { armed = { request, reply, lost: resolve } })
    },
    close: async () => {
      reset()
      await new Promise((resolve) => server.close(resolve))
    }
  }
}
