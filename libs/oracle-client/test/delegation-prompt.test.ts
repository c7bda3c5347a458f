import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import { startDomainApi, type LoopbackDomainApi } from '@impact/domain-api/testing'
import type { OracleEventPayloads, ToolApproval } from '../src/index.ts'
import { clientFor, recordingFetch, startRuntime, testUser, type RealRuntime } from './support/runtime.ts'

/** A class outside this registry, of a method it allows (`DOMAIN_EXTERNAL_CLASS_METHODS`). */
const PROTOCOL = 'did:ixo:protocol/clean-cooking'
const register = (serial: string) => `Please register a stove serial ${serial} under ${PROTOCOL}`
const stores = (calls: Array<{ method: string, path: string }>) =>
  calls.filter((c) => c.method === 'POST' && c.path === '/delegation').length

// The runtime's platform plugin (offline agent) against a real domain-api: a user whose client never stored a
// delegation asks to register a stove, and the oracle answers with its re-authorisation prompt.
describe('the re-authorisation prompt against a real oracle runtime', () => {
  let registry: LoopbackDomainApi
  let runtime: RealRuntime

  beforeAll(async () => {
    registry = await startDomainApi()
    runtime = await startRuntime({ DOMAIN_API_URL: registry.url })
  })
  afterAll(async () => {
    await runtime?.close()
    await registry?.close()
  })

  it('completes the turn, stores one fresh delegation, and the next message registers the stove', async () => {
    const user = await testUser({}, ['domain/*'])
    const recorder = recordingFetch()
    let refreshed = 0
    const client = clientFor(runtime, user, { fetch: recorder.fetch, onDelegationRefreshed: () => { refreshed++ } })
    const { sessionId } = await client.createSession()
    const prompted: Array<OracleEventPayloads['delegation_required']> = []
    const socket = client.connectSocket(sessionId, {
      reconnection: false, onDelegationRequired: (p) => prompted.push(p)
    })
    onTestFinished(() => { socket.close() })
    await socket.ready()
    const asked: ToolApproval[] = []

    const first = await client.streamMessage(sessionId, { message: register('ST-51') }, {
      onApprovalRequest: (approval) => asked.push(approval)
    })
    const prompt = await first.done
    expect(prompt.outcome).toBe('completed')
    expect(prompt.errors).toEqual([])
    expect(prompt.delegationPrompts).toEqual([expect.objectContaining({
      kind: 'delegation_required',
      retryable: true,
      detail: { ability: 'domain/create', reason: 'no_delegation', oracleDid: runtime.oracleDid }
    })])
    expect(prompt.toolCalls).toEqual([expect.objectContaining({ toolName: 'register_domain', status: 'error' })])
    expect(prompt.content).not.toBe('')
    expect(asked).toEqual([])
    await expect.poll(() => prompted).toEqual([
      expect.objectContaining({ kind: 'delegation_required', sessionId, requestId: first.requestId })
    ])
    // The prompt came on the stream and on the socket: it is answered once.
    await expect.poll(() => refreshed).toBe(1)
    expect(stores(recorder.calls)).toBe(1)
    expect((await client.getDelegationStatus()).capabilities).toContainEqual({ can: 'domain/*', with: user.did })

    const second = await client.streamMessage(sessionId, { message: register('ST-52') }, {
      onApprovalRequest: (approval) => {
        asked.push(approval)
        client.approve(approval.toolCallId, { sessionId, approved: true }).catch(() => {})
      }
    })
    const registered = await second.done
    expect(registered.outcome).toBe('completed')
    expect(registered.delegationPrompts).toEqual([])
    expect(asked.map((a) => a.toolName)).toEqual(['register_domain'])
    const [call] = registered.toolCalls
    expect(call?.status).toBe('done')
    expect(JSON.parse(call?.output ?? '')).toMatchObject({ registered: true, controllers: [user.did] })
    expect(stores(recorder.calls)).toBe(1)
  })

  it('reaches a page that did not stream the turn through its socket, which stores the fresh delegation', async () => {
    const user = await testUser({}, ['domain/*'])
    const streaming = clientFor(runtime, user)
    const { sessionId } = await streaming.createSession()
    const recorder = recordingFetch()
    const watching = clientFor(runtime, user, { fetch: recorder.fetch })
    const events: string[] = []
    const socket = watching.connectSocket(sessionId, { reconnection: false, onEvent: (e) => events.push(e.eventName) })
    onTestFinished(() => { socket.close() })
    await socket.ready()

    const turn = await (await streaming.streamMessage(sessionId, { message: register('ST-53') })).done
    expect(turn.outcome).toBe('completed')
    await expect.poll(() => stores(recorder.calls)).toBe(1)
    expect(events).toContain('delegation_required')
    expect((await watching.getDelegationStatus()).capabilities).toContainEqual({ can: 'domain/*', with: user.did })
  })
})
