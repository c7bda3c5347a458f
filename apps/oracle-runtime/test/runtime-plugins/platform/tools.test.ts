import { onTestFinished, describe, expect, it } from 'vitest'
import { parseSigner } from '@impact/ucan'
import { connectSocket } from '../../support/socket-client.ts'
import { openStream } from '../../support/sse-client.ts'
import { asSelf, authorisedUser, decide, frame, platformWorld, PROTOCOL, requests, world } from './world.ts'

platformWorld({ withModel: true })

// A file's first registration warms up three services end to end.
describe('platform plugin through a model', { timeout: 20_000 }, () => {
  it('registers a stove as the user after approval, then reports it with get_domain', async () => {
    const { user } = await authorisedUser(world.withModel)
    const sessionId = await world.withModel.h.newSession(user.headers)
    const args = { name: 'Stove ST-12, Kisumu', serial: 'ST-12', protocol: PROTOCOL }
    world.llm.enqueue({ toolCalls: [{ id: 'call_reg_ok', name: 'register_domain', args }] },
      { content: ['Registered.'] })
    const stream = await openStream(world.withModel.base, sessionId, user.headers,
      { message: 'Register my stove ST-12' })
    const asked = frame(await stream.until('approval_request'), 'approval_request')
    expect(asked).toMatchObject({ toolCallId: 'call_reg_ok', toolName: 'register_domain', status: 'pending', args })
    expect(asked.summary).toBe('Register the Device "Stove ST-12, Kisumu" (serial ST-12) in the platform registry ' +
      `in your name, under the protocol ${PROTOCOL}. This oracle does it for you with the authorisation you gave it.`)
    expect((await asSelf(user).searchDomains({ controller: user.did })).items).toEqual([])

    expect((await decide(world.withModel, user, 'call_reg_ok', { sessionId, approved: true })).statusCode).toBe(200)
    const { frames } = await stream.rest()
    const done = frame(frames, 'tool_call', 'done')
    expect(done).toMatchObject({ eventId: 'call_reg_ok', toolName: 'register_domain' })
    const registered = JSON.parse(done.output)
    expect(registered).toMatchObject({
      registered: true,
      type: 'asset/device',
      name: 'Stove ST-12, Kisumu',
      status: 'draft',
      verified: false,
      usable: false,
      yours: true,
      controllers: [user.did],
      protocol: PROTOCOL,
      metadata: { name: 'Stove ST-12, Kisumu', serial: 'ST-12' },
      createdBy: { account: user.did, service: world.withModel.h.oracleDid }
    })
    expect(frames.at(-1)?.event).toBe('done')

    const history = await asSelf(user).getDomainHistory(registered.did)
    expect(history.items.map((e) => [e.event, e.actor])).toEqual([
      ['created', { kind: 'ucan', keyId: null, account: user.did, service: world.withModel.h.oracleDid }]
    ])

    world.llm.enqueue({ toolCalls: [{ id: 'call_get_1', name: 'get_domain', args: { did: registered.did } }] },
      { content: ['It is a draft.'] })
    const res = await world.withModel.h.send(user.headers, sessionId, 'How is my stove?')
    expect(res.json().message.content).toBe('It is a draft.')
    const reported = JSON.parse(world.llm.requests.at(-1)?.body.messages.at(-1).content)
    expect(reported).toMatchObject({
      did: registered.did, status: 'draft', verified: false, usable: false, yours: true, controllers: [user.did]
    })
  })

  it('creates nothing when the user declines', async () => {
    const { user } = await authorisedUser(world.withModel)
    const sessionId = await world.withModel.h.newSession(user.headers)
    const before = requests()
    const args = { name: 'Stove X', protocol: PROTOCOL }
    world.llm.enqueue({ toolCalls: [{ id: 'call_reg_no', name: 'register_domain', args }] },
      { content: ['Not registered.'] })
    const stream = await openStream(world.withModel.base, sessionId, user.headers, { message: 'Register stove X' })
    await stream.until('approval_request')
    await decide(world.withModel, user, 'call_reg_no', { sessionId, approved: false, reason: 'wrong stove' })
    const { frames } = await stream.rest()
    expect(frame(frames, 'tool_call', 'error')?.output)
      .toBe('The user declined: wrong stove. register_domain was not run.')
    expect(requests()).toBe(before)
    expect((await asSelf(user).searchDomains({ controller: user.did })).items).toEqual([])
  })

  it('searches by every status the registry has, changed and revoked included', async () => {
    const { user } = await authorisedUser(world.withModel, 'domain/read')
    const sessionId = await world.withModel.h.newSession(user.headers)
    world.llm.enqueue({ toolCalls: [{ id: 'call_changed', name: 'search_domains', args: { status: 'changed' } }] },
      { content: ['None of your domains changed since verification.'] })
    const stream = await openStream(world.withModel.base, sessionId, user.headers, { message: 'What changed?' })
    const done = frame((await stream.rest()).frames, 'tool_call', 'done')
    expect(done).toMatchObject({ eventId: 'call_changed', toolName: 'search_domains' })
    expect(JSON.parse(done.output)).toMatchObject({ items: [] })
  })

  it('asks for authorisation when no delegation is stored, and prompts the client to store one', async () => {
    const user = await world.withModel.h.user()
    const sessionId = await world.withModel.h.newSession(user.headers)
    const before = requests()
    world.llm.enqueue({ toolCalls: [{ id: 'call_noauth', name: 'search_domains', args: { mine: true } }] },
      { content: ['Please authorise me.'] })
    const stream = await openStream(world.withModel.base, sessionId, user.headers, { message: 'What are my stoves?' })
    const { frames } = await stream.rest()
    expect(frame(frames, 'error')).toMatchObject({
      kind: 'delegation_required',
      status: 403,
      detail: { ability: 'domain/read', reason: 'no_delegation', oracleDid: world.withModel.h.oracleDid },
      sessionId
    })
    const failed = frame(frames, 'tool_call', 'error')
    expect(JSON.parse(failed.output)).toMatchObject({
      error: 'authorisation_required', ability: 'domain/read', reason: 'no_delegation'
    })
    expect(JSON.parse(failed.output).message)
      .toContain(`authorise this oracle (${world.withModel.h.oracleDid}) for domain/read`)
    expect(frame(frames, 'message')?.content).toBe('Please authorise me.')
    expect(frames.at(-1)?.event).toBe('done')
    expect(requests()).toBe(before)
  })

  it('prompts for authorisation, without asking to approve, when the delegation does not grant registering',
    async () => {
      const { user } = await authorisedUser(world.withModel, 'domain/read')
      const sessionId = await world.withModel.h.newSession(user.headers)
      const socket = await connectSocket(world.withModel.base, {
        sessionId, auth: { invocation: user.invocation, ucanDelegation: user.delegation }
      })
      onTestFinished(() => { socket.disconnect() })
      const before = requests()
      const args = { name: 'S', protocol: PROTOCOL }
      world.llm.enqueue({ toolCalls: [{ id: 'call_short', name: 'register_domain', args }] },
        { content: ['Please authorise me to register it.'] })
      const stream = await openStream(world.withModel.base, sessionId, user.headers, { message: 'Register S' })
      const { frames } = await stream.rest()
      expect(frames.map((f) => f.event)).toEqual(['error', 'tool_call', 'message', 'done'])
      const prompt = {
        kind: 'delegation_required',
        status: 403,
        retryable: true,
        detail: { ability: 'domain/create', reason: 'not_granted', oracleDid: world.withModel.h.oracleDid },
        sessionId,
        requestId: stream.response.headers.get('x-request-id')
      }
      expect(frame(frames, 'error')).toMatchObject(prompt)
      expect(JSON.parse(frame(frames, 'tool_call', 'error').output)).toMatchObject({
        error: 'authorisation_required', ability: 'domain/create', reason: 'not_granted'
      })
      expect(frames.at(-1)?.data).toEqual({ messageId: expect.any(String) })
      expect(await socket.next('delegation_required'))
        .toEqual({ eventName: 'delegation_required', payload: expect.objectContaining(prompt) })
      const history = await world.withModel.h.app.inject({
        method: 'GET', url: `/sessions/${sessionId}/messages`, headers: user.headers
      })
      expect(history.json().pendingApprovals).toEqual([])
      expect(requests()).toBe(before)
    })

  it('reports domain-api\'s refusal of a delegation the user revoked there', async () => {
    const { user, raw } = await authorisedUser(world.withModel)
    await asSelf(user).revoke(raw)
    world.llm.enqueue({ toolCalls: [{ id: 'call_revoked', name: 'get_domain', args: { did: PROTOCOL } }] },
      { content: ['ok'] })
    const res = await world.withModel.h.send(user.headers, await world.withModel.h.newSession(user.headers), 'status?')
    const [call] = (await world.withModel.h.transcript(user.headers, res.json().sessionId)).at(-1).toolCalls
    expect(call.status).toBe('error')
    expect(JSON.parse(call.output)).toMatchObject({
      error: 'authorisation_required', ability: 'domain/read', reason: 'DOMAIN_UCAN_REVOKED'
    })
  })

  it('turns domain-api errors into results the model reads', async () => {
    const { user } = await authorisedUser(world.withModel)
    const missing = 'did:ixo:entity:ffffffffffffffffffffffffffffffff'
    world.llm.enqueue({ toolCalls: [{ id: 'call_missing', name: 'get_domain', args: { did: missing } }] },
      { content: ['Not found.'] })
    const res = await world.withModel.h.send(user.headers, await world.withModel.h.newSession(user.headers), 'find it')
    expect(res.statusCode).toBe(200)
    const sent = JSON.parse(world.llm.requests.at(-1)?.body.messages.at(-1).content)
    expect(sent).toMatchObject({ error: 'DOMAIN_NOT_FOUND', status: 404, service: 'domain-api' })
  })

  it('forwards a revocation at the oracle to domain-api, which then refuses the delegation', async () => {
    const { user, raw } = await authorisedUser(world.withModel)
    const oracleAsUser = world.platform.actingAs({ signer: parseSigner(world.withModel.h.oracleKey), proof: raw })
    expect((await oracleAsUser.searchDomains({ limit: 1 })).items).toBeInstanceOf(Array)
    const res = await world.withModel.h.app.inject({ method: 'DELETE', url: '/delegation', headers: user.headers })
    expect(res.json()).toEqual({ ok: true })
    await expect(oracleAsUser.searchDomains({ limit: 1 })).rejects.toMatchObject({ code: 'DOMAIN_UCAN_REVOKED' })
  })
})
