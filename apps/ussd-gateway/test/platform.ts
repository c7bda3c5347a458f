import { randomBytes } from 'node:crypto'
import { createServer } from 'node:net'
import { startDomainApi } from '@impact/domain-api/testing'
import { decodeBase64Car } from '@impact/ucan'
import type { AppOptions } from '@impact/oracle-runtime'
import { createHarness } from '../../oracle-runtime/test/support/harness.ts'
import { dropRedisPrefix } from './helper.ts'

export interface SeenInvocation { issuer: string, audience: string, capabilities: Array<{ can: string, with: string }> }

/** A quorum of one vote, so a council of one decides. */
export async function startRegistry () {
  const prefix = `ussd-test-registry-${randomBytes(4).toString('hex')}:`
  const registry = await startDomainApi({ env: { VERIFICATION_QUORUM: '1' }, statePrefix: prefix })
  const { admin, accountWith, keyWith } = registry

  async function verify (did: string) {
    const voter = await accountWith(['voter'])
    const proposal = await admin<{ id: string }>('POST', `/v1/domains/${did}/verification-proposals`, {
      evidence: 'https://example.org/site-visit/1', note: 'site visit done', council: [voter.account]
    }, await keyWith(['compliance']))
    await admin('POST', `/v1/verification-proposals/${proposal.id}/votes`, { vote: 'yes' }, voter.key)
  }
  return {
    url: registry.url,
    did: registry.did,
    grant: registry.grant,
    async invocations (): Promise<SeenInvocation[]> {
      const bearers = registry.seen.flatMap((r) =>
        r.authType === 'ucan' && r.authorization !== undefined ? [r.authorization.replace(/^Bearer /, '')] : [])
      return await Promise.all(bearers.map(async (bearer) => {
        const invocation = await decodeBase64Car(bearer)
        return {
          issuer: invocation.issuer.did(),
          audience: invocation.audience.did(),
          capabilities: invocation.capabilities.map((c) => ({ can: c.can, with: c.with }))
        }
      }))
    },
    /** As the development seed makes them. */
    async programme () {
      const office = await keyWith(['registrar'])
      const protocol = await admin<{ did: string }>('POST', '/v1/domains', {
        type: 'protocol/project', class: 'did:ixo:protocol/project', metadata: { name: 'Clean cooking protocol' }
      }, office)
      // A protocol of the registry is a class only once verified.
      await verify(protocol.did)
      const project = await admin<{ did: string }>('POST', '/v1/domains', {
        type: 'Project', class: protocol.did, metadata: { name: 'Clean Cooking Project' }
      }, office)
      return { protocol: protocol.did, project: project.did }
    },
    async bySerial (serial: string) {
      return (await admin<{ items: any[] }>('GET', `/v1/domains?externalId=${encodeURIComponent(serial)}`)).items
    },
    verify,
    async close () {
      await registry.close()
      await dropRedisPrefix(prefix)
    }
  }
}

export type Registry = Awaited<ReturnType<typeof startRegistry>>

/** The offline agent, booted by the runtime's own test harness. */
export async function startOracle (env: Record<string, string> = {}, options: AppOptions = {}) {
  const harness = await createHarness(env, options)
  const turns: Array<{ sessionId: string, did: string }> = []
  harness.runtime.bus.subscribe({}, (event) => {
    if (event.name === 'done') turns.push({ sessionId: event.sessionId, did: event.did })
  })
  const url = await harness.app.listen({ host: '127.0.0.1', port: 0 })
  return { url, did: harness.oracleDid, turns, close: harness.close }
}

/** A port just freed: a service that is down. */
export async function deadUrl (): Promise<string> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise<void>((resolve) => server.close(() => { resolve() }))
  return `http://127.0.0.1:${port}`
}
