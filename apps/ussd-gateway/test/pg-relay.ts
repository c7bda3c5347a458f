import { createServer, connect, type Server, type Socket } from 'node:net'

/** A `connection_failure` ErrorResponse, then ReadyForQuery (idle), in PostgreSQL's wire protocol. */
function connectionFailure (): Buffer {
  const fields = Buffer.from('SERROR\0VERROR\0C08006\0Mconnection to the server was lost\0\0')
  const length = Buffer.alloc(4)
  length.writeUInt32BE(fields.length + 4)
  return Buffer.concat([Buffer.from('E'), length, fields, READY_IDLE])
}

const READY = Buffer.from([0x5a, 0, 0, 0, 5])
const READY_IDLE = Buffer.concat([READY, Buffer.from('I')])

/**
 * A TCP relay in front of PostgreSQL that a test can cut and restore, like a network outage, or
 * arm to lose the answer to a given statement once the server has committed it: the app gets a
 * connection failure instead, on a connection that stays usable (a cut would be the same to the
 * app, less the socket).
 */
export async function startRelay (target: { host: string, port: number }) {
  const sockets = new Set<Socket>()
  let up = true
  let armed: { statement: string, answer: string, lost: () => void } | undefined
  const server: Server = createServer((client) => {
    if (!up) {
      client.destroy()
      return
    }
    const upstream = connect(target.port, target.host)
    for (const socket of [client, upstream]) {
      sockets.add(socket)
      socket.on('error', () => {})
      socket.on('close', () => { sockets.delete(socket) })
    }
    let doomed: typeof armed
    client.on('data', (chunk: Buffer) => {
      if (armed !== undefined && chunk.includes(armed.statement)) {
        doomed = armed
        armed = undefined
      }
      upstream.write(chunk)
    })
    upstream.on('data', (chunk: Buffer) => {
      // The whole answer, through ReadyForQuery, in one chunk (as a local server sends it): replaced.
      const whole = chunk.includes(doomed?.answer ?? '\0') && chunk.subarray(-6, -1).equals(READY)
      if (doomed === undefined || !whole) {
        client.write(chunk)
        return
      }
      client.write(connectionFailure())
      doomed.lost()
      doomed = undefined
    })
    client.on('end', () => upstream.end())
    upstream.on('end', () => client.end())
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  return {
    port: typeof address === 'object' && address !== null ? address.port : 0,
    cut: () => {
      up = false
      for (const socket of sockets) socket.destroy()
    },
    restore: () => { up = true },
    /**
     * Resolves once the server's `answer` (e.g. `INSERT 0 1`) to the next `statement` sent was
     * replaced by a connection failure: the statement took effect, the app was told it failed.
     */
    loseAnswer: async (statement: string, answer: string) => await new Promise<void>((resolve) => {
      armed = { statement, answer, lost: resolve }
    }),
    close: async () => {
      for (const socket of sockets) socket.destroy()
      await new Promise((resolve) => server.close(resolve))
    }
  }
}

export type Relay = Awaited<ReturnType<typeof startRelay>>
