import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { generateSigner } from '@impact/ucan'
import { createPlatformClient, PlatformClientError } from '../src/index.ts'
import { startSilentServer } from './services.ts'

let silent: Awaited<ReturnType<typeof startSilentServer>>
let closedUrl: string

beforeAll(async () => {
  silent = await startSilentServer()
  const gone = await startSilentServer()
  closedUrl = gone.url
  await gone.close()
})
afterAll(async () => { await silent?.close() })

async function failure (call: Promise<unknown>): Promise<unknown> {
  return await call.then(() => { throw new Error('expected a failure') }, (e: unknown) => e)
}

describe('transport', () => {
  it('gives up after the timeout with PLATFORM_TIMEOUT', async () => {
    const client = createPlatformClient({ chainRestUrl: silent.url, timeoutMs: 200 })
    const started = Date.now()
    expect(await failure(client.queryChain('/ixo/token/params'))).toMatchObject({
      code: 'PLATFORM_TIMEOUT', statusCode: 504, service: 'chain-rest-gateway'
    })
    expect(Date.now() - started).toBeLessThan(2000)
  })

  it('times out the DID lookup too', async () => {
    const client = createPlatformClient({ domainApiUrl: silent.url, timeoutMs: 200 })
    const actor = { signer: await generateSigner(), proof: null }
    expect(await failure(client.actingAs(actor).searchDomains())).toMatchObject({ code: 'PLATFORM_TIMEOUT' })
  })

  it('reports a service that cannot be reached as PLATFORM_UNAVAILABLE', async () => {
    const client = createPlatformClient({ chainRestUrl: closedUrl })
    const error = await failure(client.queryChain('/ixo/token/params'))
    expect(error).toBeInstanceOf(PlatformClientError)
    expect(error).toMatchObject({ code: 'PLATFORM_UNAVAILABLE', statusCode: 503 })
  })

  it('rethrows the caller\'s abort reason as is', async () => {
    const client = createPlatformClient({ chainRestUrl: silent.url })
    const controller = new AbortController()
    const reason = new Error('turn cancelled')
    setTimeout(() => { controller.abort(reason) }, 50)
    expect(await failure(client.queryChain('/ixo/token/params', { signal: controller.signal }))).toBe(reason)
  })
})
