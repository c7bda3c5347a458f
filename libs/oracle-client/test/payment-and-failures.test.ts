import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { OracleRequestError } from '../src/index.ts'
import { startRuntime, withSession, type RealRuntime } from './support/runtime.ts'

const ADMIN = 'client-test-operator-token'

// Credits gate every message; the model provider is unreachable, so an admitted turn fails upstream.
describe('payment required and provider failures against a real oracle runtime', () => {
  let runtime: RealRuntime
  beforeAll(async () => {
    runtime = await startRuntime(
      { CREDITS_ADMIN_TOKEN: ADMIN, LLM_BASE_URL: 'http://127.0.0.1:9/v1', LLM_TIMEOUT_MS: '2000' },
      { features: { credits: true } }
    )
  })
  afterAll(async () => { await runtime?.close() })

  const setup = async () => {
    const claims: string[][] = []
    return { claims, ...await withSession(runtime, { onPaymentRequired: (ids) => claims.push(ids) }) }
  }

  it('hands the claim ids of a 402 to the payment callback, streamed or not, and throws a typed error', async () => {
    const { client, claims, sessionId } = await setup()
    const error = await client.streamMessage(sessionId, { message: 'hello' }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(OracleRequestError)
    expect(error).toMatchObject({ status: 402, code: 'ORACLE_PAYMENT_REQUIRED', isPaymentRequired: true })
    const ids = (error as OracleRequestError).claimIds
    expect(ids).toHaveLength(1)
    expect(ids?.[0]).toMatch(/\S/)
    await expect(client.sendMessage(sessionId, { message: 'hello' })).rejects.toMatchObject({
      status: 402,
      claimIds: ids
    })
    expect(claims).toEqual([ids, ids])
  })

  it('streams the provider failure as an error event then done, and the turn ends failed', async () => {
    const { user, client, claims, sessionId } = await setup()
    const grant = await fetch(`${runtime.baseUrl}/credits/grants`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ did: user.did, amount: 5 })
    })
    expect(grant.status).toBe(200)
    const stream = await client.streamMessage(sessionId, { message: 'hello' })
    const names: string[] = []
    for await (const event of stream) names.push(event.eventName)
    const result = await stream.done
    expect(names.slice(-2)).toEqual(['error', 'done'])
    expect(result.outcome).toBe('failed')
    expect(result.errors[0]).toMatchObject({ kind: 'upstream', sessionId, requestId: stream.requestId })
    expect(result.errors[0]?.error).toMatch(/^The model provider failed/)
    await expect(client.sendMessage(sessionId, { message: 'again' })).rejects.toMatchObject({
      status: 502,
      code: 'ORACLE_UPSTREAM_FAILED'
    })
    expect(claims).toEqual([])
  })
})
