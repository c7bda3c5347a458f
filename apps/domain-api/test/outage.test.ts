import { fileURLToPath } from 'node:url'
import { expect } from 'vitest'
import { createTestDatabase } from '@impact/persistence/testing'
import { describeOutages, type ServerProcess } from '@impact/service-kit/testing'
import { ADMIN_KEY, PROTOCOL, randomAccount, UNTHROTTLED } from './helper.ts'

const json = { 'content-type': 'application/json' }

/** Creates and lists domains as a registrar; every creation answered 201 must be readable afterwards. */
async function traffic (server: ServerProcess) {
  const admin = { ...json, authorization: `Bearer ${ADMIN_KEY}` }
  const account = randomAccount()
  await fetch(`${server.url}/v1/accounts/${account}/roles`, {
    method: 'PUT', headers: admin, body: JSON.stringify({ roles: ['registrar'] })
  })
  const issued = await fetch(`${server.url}/v1/api-keys`, {
    method: 'POST',
    headers: admin,
    body: JSON.stringify({ name: 'registrar', roles: ['registrar'], account })
  })
  const headers = { ...json, authorization: `Bearer ${(await issued.json() as { key: string }).key}` }
  const acknowledged: string[] = []
  let n = 0
  return {
    request: async () => {
      const kind = n++ % 3
      const create = kind === 0
      const res = create
        ? await fetch(`${server.url}/v1/domains`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ type: 'Project', class: PROTOCOL, metadata: { name: `Stove programme ${n}` } })
        })
        : kind === 1
          ? await fetch(`${server.url}/v1/domains?limit=5`, { headers })
          : await fetch(`${server.url}/graphql`, {
            method: 'POST',
            headers,
            body: JSON.stringify({ query: '{ domains(first: 5) { edges { node { status openProposal { id } } } } }' })
          })
      type Body = { did?: string, code?: string, errors?: Array<{ extensions?: { code?: string } }> }
      const body = await res.json() as Body
      if (create && res.status === 201 && body.did !== undefined) acknowledged.push(body.did)
      // A GraphQL answer carries its code in its errors, and a 200 with errors is a failure too.
      const code = body.code ?? body.errors?.[0]?.extensions?.code
      return res.status >= 400 || code !== undefined ? `${res.status} ${code ?? ''}` : String(res.status)
    },
    expectAcknowledgedKept: async () => {
      expect(acknowledged.length).toBeGreaterThan(0)
      for (const did of acknowledged) {
        expect((await fetch(`${server.url}/v1/domains/${did}`, { headers })).status, did).toBe(200)
      }
    }
  }
}

describeOutages({
  entry: fileURLToPath(new URL('../src/server.ts', import.meta.url)),
  env: { NODE_ENV: 'test', DOMAIN_API_ADMIN_KEY: ADMIN_KEY, DATA_DIR: 'memory://', ...UNTHROTTLED },
  createDatabase: createTestDatabase,
  traffic,
  allowed: /^(200|201|503 SERVICE_UNAVAILABLE)$/,
  unavailable: '503 SERVICE_UNAVAILABLE'
})
