import { describe, expect, it, onTestFinished } from 'vitest'
import { oracleProcesses } from '../../support/harness.ts'
import { connectSocket } from '../../support/socket-client.ts'
import { openStream } from '../../support/sse-client.ts'
import { authorisedUser, decide, delegationOf, platformWorld, PROTOCOL, requests, world } from './world.ts'

platformWorld()

describe('platform plugin across a restart', { timeout: 60_000 }, () => {
  const processes = oracleProcesses('oracle-platform')
  /** One process of the oracle on the same database, key and shared state prefix as the others. */
  const boot = async (key?: string) => await processes({
    DOMAIN_API_URL: world.registry.url,
    LLM_BASE_URL: world.llm.url,
    TURN_OWNER_TTL_MS: '1000',
    ...(key !== undefined ? { ORACLE_PRIVATE_KEY: key } : {})
  })

  it('prompts the session\'s sockets when a registration resumed on approval is no longer authorised', async () => {
    const first = await boot()
    const { user } = await authorisedUser(first)
    const sessionId = await first.h.newSession(user.headers)
    const args = { name: 'Stove ST-40', protocol: PROTOCOL }
    world.llm.enqueue({ toolCalls: [{ id: 'call_reg_resumed', name: 'register_domain', args }] })
    const stream = await openStream(first.base, sessionId, user.headers, { message: 'Register ST-40' })
    await stream.until('approval_request')
    await first.h.app.close()
    expect((await stream.rest()).frames.at(-1)).toMatchObject({ event: 'done', data: { awaitingApproval: true } })

    // Restarted, the oracle holds a narrower delegation by the time the user approves.
    const second = await boot(first.h.oracleKey)
    const narrower = await delegationOf(user, second.h.oracleDid, 'domain/read')
    expect((await second.h.app.inject({
      method: 'POST', url: '/delegation', headers: user.headers, payload: { raw: narrower }
    })).statusCode).toBe(200)
    const socket = await connectSocket(second.base, {
      sessionId, auth: { invocation: user.invocation, ucanDelegation: user.delegation }
    })
    onTestFinished(() => { socket.disconnect() })
    const before = requests()
    world.llm.enqueue({ content: ['Please authorise me to register stoves for you.'] })
    expect((await decide(second, user, 'call_reg_resumed', { sessionId, approved: true })).statusCode).toBe(200)

    expect(await socket.next('delegation_required')).toEqual({
      eventName: 'delegation_required',
      payload: expect.objectContaining({
        kind: 'delegation_required',
        status: 403,
        retryable: true,
        detail: { ability: 'domain/create', reason: 'not_granted', oracleDid: second.h.oracleDid },
        sessionId,
        requestId: stream.response.headers.get('x-request-id')
      })
    })
    const failed = await socket.next('tool_call', (e) => e.payload.status === 'error')
    expect(JSON.parse(failed.payload.output)).toMatchObject({ error: 'authorisation_required', reason: 'not_granted' })
    await socket.next('message_cache_invalidation')
    expect(requests()).toBe(before)
    expect((await second.h.transcript(user.headers, sessionId)).at(-1)).toMatchObject({
      content: 'Please authorise me to register stoves for you.',
      toolCalls: [{ id: 'call_reg_resumed', status: 'error' }]
    })
  })
})
