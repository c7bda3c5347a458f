import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

/** A class outside this registry, of a method it allows (`DOMAIN_EXTERNAL_CLASS_METHODS`). */
export const PROTOCOL = 'did:ixo:protocol/clean-cooking'
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
