import { fileURLToPath } from 'node:url'
import { expect } from 'vitest'
import { createTestDatabase } from '@impact/persistence/testing'
import { describeOutages, freshIdentity, ucanCaller, type ServerProcess } from '@impact/service-kit/testing'
import { UNTHROTTLED } from './support/harness.ts'

const oracleKey = (await freshIdentity()).key

/** A user starting sessions and sending messages; every message answered 200 must be in its session's history. */
async function traffic (server: ServerProcess) {
  const { oracleDid } = await (await fetch(server.url)).json() as { oracleDid: string }
  const { invocation } = await ucanCaller(oracleDid, 600)
  const headers = { authorization: `Bearer ${invocation}`, 'x-auth-type': 'ucan', 'content-type': 'application/json' }
  const acknowledged: Array<{ sessionId: string, message: string }> = []
  let n = 0
  const label = async (res: Response) => res.status < 400
    ? String(res.status)
    : `${res.status} ${(await res.json() as { code?: string }).code ?? ''}`
  return {
    request: async () => {
      const started = await fetch(`${server.url}/sessions`, { method: 'POST', headers, body: '{}' })
      if (started.status !== 201) return await label(started)
      const { sessionId } = await started.json() as { sessionId: string }
      const message = `How much charcoal did stove ${++n} save?`
      const sent = await fetch(`${server.url}/messages/${sessionId}`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ message })
      })
      if (sent.status === 200) acknowledged.push({ sessionId, message })
      return await label(sent)
    },
    expectAcknowledgedKept: async () => {
      expect(acknowledged.length).toBeGreaterThan(0)
      for (const { sessionId, message } of acknowledged) {
        const history = await fetch(`${server.url}/messages/${sessionId}`, { headers })
        expect(await history.text(), sessionId).toContain(message)
      }
    }
  }
}

describeOutages({
  entry: fileURLToPath(new URL('../src/server.ts', import.meta.url)),
  env: { NODE_ENV: 'test', DATA_DIR: 'memory://', ORACLE_PRIVATE_KEY: oracleKey, ...UNTHROTTLED },
  createDatabase: createTestDatabase,
  traffic,
  allowed: /^(200|503 SERVICE_UNAVAILABLE)$/,
  unavailable: '503 SERVICE_UNAVAILABLE'
})
