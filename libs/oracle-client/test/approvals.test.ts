import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { stovePlugin } from '../../../apps/oracle-runtime/test/support/stove-plugin.ts'
import { OracleRequestError, type OracleSocket, type ToolApproval } from '../src/index.ts'
import { clientFor, startRuntime, testUser, type RealRuntime } from './support/runtime.ts'

describe('tool approvals against a real oracle runtime', () => {
  const stoves = stovePlugin()
  let runtime: RealRuntime
  const sockets: OracleSocket[] = []

  beforeAll(async () => { runtime = await startRuntime({}, { plugins: [stoves.plugin] }) })
  afterAll(async () => {
    for (const socket of sockets) socket.close()
    await runtime?.close()
  })

  it('reports the request while streaming; approve() lets the turn run the tool', async () => {
    const client = clientFor(runtime, await testUser())
    const { sessionId } = await client.createSession()
    const before = stoves.runs.length
    const asked: ToolApproval[] = []
    const stream = await client.streamMessage(sessionId, { message: 'register_stove {"serial":"C-1"}' }, {
      onApprovalRequest: (approval) => {
        asked.push(approval)
        client.approve(approval.toolCallId, { sessionId, approved: true }).catch(() => {})
      }
    })
    const result = await stream.done
    expect(asked).toEqual([expect.objectContaining({
      sessionId, toolName: 'register_stove', args: { serial: 'C-1' }, summary: 'Register the stove C-1 in your name'
    })])
    expect(result.outcome).toBe('completed')
    expect(result.approvals.map((a) => a.status)).toEqual(['approved'])
    expect(result.toolCalls).toEqual([expect.objectContaining({ status: 'done', output: 'registered C-1' })])
    expect(stoves.runs.slice(before)).toEqual([{ serial: 'C-1' }])
    const again = await client.approve(asked[0]?.toolCallId ?? '', { sessionId, approved: true }).catch((e) => e)
    expect(again).toBeInstanceOf(OracleRequestError)
    expect(again.status).toBe(409)
  })

  it('lists the request in history and over the socket; a denial reaches the agent with its reason', async () => {
    const client = clientFor(runtime, await testUser())
    const { sessionId } = await client.createSession()
    const onSocket: ToolApproval[] = []
    const socket = client.connectSocket(sessionId, { reconnection: false, onApprovalRequest: (a) => onSocket.push(a) })
    sockets.push(socket)
    await socket.ready()
    const before = stoves.runs.length
    const stream = await client.streamMessage(sessionId, { message: 'register_stove {"serial":"C-2"}' })
    await expect.poll(async () => (await client.getHistory(sessionId)).pendingApprovals?.length).toBe(1)
    const [pending] = (await client.getHistory(sessionId)).pendingApprovals ?? []
    expect(onSocket).toEqual([pending])
    const decided = await client.approve(pending?.toolCallId ?? '', { sessionId, approved: false, reason: 'wrong one' })
    expect(decided).toMatchObject({ status: 'denied', reason: 'wrong one' })
    const result = await stream.done
    expect(result.toolCalls[0]?.output).toBe('The user declined: wrong one. register_stove was not run.')
    expect(result.content).toContain('The user declined: wrong one.')
    expect(stoves.runs.length).toBe(before)
    expect((await client.getHistory(sessionId)).pendingApprovals).toEqual([])
  })

  it('refuses another user\'s decision with 404', async () => {
    const owner = clientFor(runtime, await testUser())
    const other = clientFor(runtime, await testUser())
    const { sessionId } = await owner.createSession()
    let id = ''
    const stream = await owner.streamMessage(sessionId, { message: 'register_stove {"serial":"C-3"}' }, {
      onApprovalRequest: (approval) => { id = approval.toolCallId }
    })
    await expect.poll(() => id).not.toBe('')
    const refused = await other.approve(id, { sessionId, approved: true }).catch((e) => e)
    expect(refused).toMatchObject({ status: 404 })
    await stream.abort()
  })
})
