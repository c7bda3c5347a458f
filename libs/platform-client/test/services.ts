import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

/** A protocol DID the registry does not hold (it accepts such classes: they may live on chain). */
export const PROTOCOL = 'did:ixo:entity:0123456789abcdef0123456789abcdef'
/** An entity of the chain gateway's development node. */
export const ENTITY_1 = 'did:ixo:entity:0000000000000000000000000000e001'

/** A loopback server that accepts requests and never answers them. */
export async function startSilentServer () {
  const server: Server = createServer(() => {})
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close () {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => { resolve() }))
    }
  }
}
