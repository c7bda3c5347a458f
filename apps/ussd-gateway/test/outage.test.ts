import { randomUUID } from 'node:crypto'
import { fileURLToPath } from 'node:url'
import { expect } from 'vitest'
import { createTestDatabase } from '@impact/persistence/testing'
import { describeOutages, type ServerProcess } from '@impact/service-kit/testing'
import { newPhone, TEST_PIN_KEY } from './helper.ts'

const UNAVAILABLE = 'END Service temporarily unavailable. Please try again later.'
const PIN = '48213'

/**
 * Phones signing up over HTTP as an aggregator posts them; every account the gateway confirmed must log in
 * afterwards.
 */
async function traffic (server: ServerProcess) {
  const hop = async (sessionId: string, phoneNumber: string, text: string) => {
    const res = await fetch(`${server.url}/api/ussd`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ sessionId, serviceCode: '*384*123#', phoneNumber, text }).toString()
    })
    return { status: res.status, body: await res.text() }
  }
  const run = async (inputs: string[]) => {
    const sessionId = `ATUid_${randomUUID()}`
    const phoneNumber = newPhone()
    let reply = { status: 0, body: '' }
    for (let i = 1; i <= inputs.length; i++) {
      reply = await hop(sessionId, phoneNumber, inputs.slice(0, i).join('*'))
      if (!reply.body.startsWith('CON ')) break
    }
    return reply
  }
  const created: string[] = []
  return {
    request: async () => {
      const reply = await run(['2', '2', 'Halima Yusuf', '00', PIN, PIN])
      const customerId = /Customer ID: (C[0-9A-F]{8})/.exec(reply.body)?.[1]
      if (customerId !== undefined) created.push(customerId)
      if (reply.status !== 200) return `${reply.status} ${reply.body.slice(0, 40)}`
      return reply.body === UNAVAILABLE ? 'END unavailable' : reply.body.slice(0, 3)
    },
    expectAcknowledgedKept: async () => {
      expect(created.length).toBeGreaterThan(0)
      for (const customerId of created) {
        expect((await run(['2', '1', customerId, PIN])).body, customerId).toMatch(/^CON Login successful\./)
      }
    }
  }
}

describeOutages({
  entry: fileURLToPath(new URL('../src/server.ts', import.meta.url)),
  env: {
    NODE_ENV: 'test',
    DATA_DIR: 'memory://',
    PIN_ENCRYPTION_KEY: TEST_PIN_KEY,
    REDIS_KEY_PREFIX: `test:ussd:drill:${randomUUID().slice(0, 8)}:`,
    RATE_LIMIT_MAX: '1000000',
    RATE_LIMIT_PHONE_MAX: '1000000',
    // Sixteen phones confirming PINs at once must not meet the PIN queue's busy END.
    PIN_CHECK_QUEUE_MAX: '1000'
  },
  createDatabase: createTestDatabase,
  traffic,
  // A phone that met the outage mid-signup sees the unavailable END; every other hop is a menu.
  allowed: /^(CON|END unavailable)$/,
  unavailable: 'END unavailable'
})
