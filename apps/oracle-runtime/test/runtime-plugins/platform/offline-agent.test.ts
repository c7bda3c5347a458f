import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { mintInvocation } from '@impact/ucan'
import { openStream } from '../../support/sse-client.ts'
import {
  asSelf, authorisedUser, CHAIN_ENTITY, decide, frame, platformWorld, PROTOCOL, requests, world
} from './world.ts'

platformWorld({ offline: true })

// A file's first registration warms up three services end to end.
describe('platform plugin through the offline agent', { timeout: 20_000 }, () => {
  it('registers a stove named in plain words, after approval, and reads it back by DID', async () => {
    const { user } = await authorisedUser(world.offline)
    const sessionId = await world.offline.h.newSession(user.headers)
    const stream = await openStream(world.offline.base, sessionId, user.headers, {
      message: `Please register a stove serial ST-99 under ${PROTOCOL}`
    })
    const asked = frame(await stream.until('approval_request'), 'approval_request')
    expect(asked).toMatchObject({
      toolName: 'register_domain',
      args: { name: 'Stove ST-99', type: 'Device', serial: 'ST-99', protocol: PROTOCOL }
    })
    await decide(world.offline, user, asked.toolCallId, { sessionId, approved: true })
    const { frames } = await stream.rest()
    const registered = JSON.parse(frame(frames, 'tool_call', 'done').output)
    expect(registered).toMatchObject({
      registered: true, controllers: [user.did], createdBy: { account: user.did, service: world.offline.h.oracleDid }
    })
    const answer = frames.filter((f) => f.event === 'message').map((f) => f.data.content).join('')
    expect(answer).toContain('register_domain: {"registered":true')

    for (const message of [`get_domain ${registered.did}`, `How is ${registered.did}?`]) {
      await world.offline.h.send(user.headers, sessionId, message)
      const [call] = (await world.offline.h.transcript(user.headers, sessionId)).at(-1).toolCalls
      expect(call).toMatchObject({ name: 'get_domain', status: 'done' })
      expect(JSON.parse(call.output)).toMatchObject({ did: registered.did, status: 'draft', yours: true })
    }
  })

  it('prompts a user who never authorised the oracle instead of asking them to approve a registration', async () => {
    const user = await world.offline.h.user()
    const sessionId = await world.offline.h.newSession(user.headers)
    const before = requests()
    const stream = await openStream(world.offline.base, sessionId, user.headers, {
      message: `Please register a stove serial ST-98 under ${PROTOCOL}`
    })
    const { frames } = await stream.rest()
    expect(frames.some((f) => f.event === 'approval_request')).toBe(false)
    expect(frame(frames, 'error')).toMatchObject({
      kind: 'delegation_required', detail: { ability: 'domain/create', reason: 'no_delegation' }
    })
    expect(frame(frames, 'tool_call', 'error')).toMatchObject({ toolName: 'register_domain' })
    expect(frames.at(-1)).toMatchObject({ event: 'done', data: { messageId: expect.any(String) } })
    expect(frames.at(-1)?.data).not.toHaveProperty('failed')
    expect(requests()).toBe(before)
  })

  it('reads a verification with its open proposal and tally', async () => {
    const { user } = await authorisedUser(world.offline)
    const domain = await asSelf(user).registerDomain({ type: 'Device', class: PROTOCOL, metadata: { name: 'V' } })
    await world.registry.grant(user.did, ['compliance'])
    // A proposal needs an electorate that can reach the quorum (3) when it opens.
    for (let i = 0; i < 3; i++) await world.registry.grant(`did:ixo:voter${randomBytes(6).toString('hex')}`, ['voter'])
    const propose = await fetch(`${world.registry.url}/v1/domains/${domain.did}/verification-proposals`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${await mintInvocation({
          issuer: user.signer, audience: world.registry.did, capability: { can: 'verification/propose', with: user.did }
        })}`,
        'x-auth-type': 'ucan',
        'content-type': 'application/json'
      },
      body: JSON.stringify({ evidence: 'https://example.org/stove/evidence' })
    })
    expect(propose.status).toBe(201)
    const res = await world.offline.h.send(user.headers, await world.offline.h.newSession(user.headers),
      `get_verification ${domain.did}`)
    const [call] = (await world.offline.h.transcript(user.headers, res.json().sessionId)).at(-1).toolCalls
    expect(JSON.parse(call.output)).toMatchObject({
      did: domain.did,
      status: 'verification_submitted',
      verified: false,
      proposal: { status: 'open', tally: { yes: 0, no: 0, abstain: 0, total: 0 }, votes: [] }
    })
  })

  it('queries the chain by route', async () => {
    const { user } = await authorisedUser(world.offline)
    const res = await world.offline.h.send(user.headers, await world.offline.h.newSession(user.headers),
      `query_chain /ixo/entity/${CHAIN_ENTITY}`)
    const [call] = (await world.offline.h.transcript(user.headers, res.json().sessionId)).at(-1).toolCalls
    expect(call).toMatchObject({ name: 'query_chain', status: 'done' })
    expect(JSON.parse(call.output)).toMatchObject({ entity: { id: CHAIN_ENTITY } })
  })
})
