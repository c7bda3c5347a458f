import { act, renderHook, waitFor } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import { useChat } from '../src/index.ts'
import { testUser } from '../../oracle-client/test/support/runtime.ts'
import { reactRuntimes, stoves } from './support/runtimes.tsx'

describe('useChat approvals against a real oracle runtime', () => {
  const { wrapperFor, clientFor } = reactRuntimes()

  it('lists a tool call waiting for approval; approve lets it run, deny tells the agent', async () => {
    const user = await testUser()
    const { sessionId } = await clientFor(user).createSession()
    const { result } = renderHook(() => useChat({ sessionId }), { wrapper: wrapperFor(user) })
    await waitFor(() => { expect(result.current.isLoadingHistory).toBe(false) })
    expect(result.current.socketState).toBe('off')
    const before = stoves.runs.length

    let sent: Promise<unknown> = Promise.resolve()
    act(() => { sent = result.current.sendMessage('register_stove {"serial":"R-1"}') })
    await waitFor(() => { expect(result.current.pendingApprovals).toHaveLength(1) })
    expect(result.current.pendingApprovals[0]).toMatchObject({ toolName: 'register_stove', status: 'pending' })
    expect(result.current.status).toBe('streaming')
    // An approval keeps the session socket on: a resumed turn's events come that way.
    await waitFor(() => { expect(result.current.socketState).toBe('connected') })
    await act(async () => { await result.current.approve(result.current.pendingApprovals[0]?.toolCallId ?? '') })
    await act(async () => { await sent })
    expect(result.current.pendingApprovals).toEqual([])
    expect(result.current.status).toBe('ready')
    expect(result.current.messages.at(-1)?.toolCalls).toMatchObject([{ status: 'done', output: 'registered R-1' }])
    expect(stoves.runs.slice(before)).toEqual([{ serial: 'R-1' }])

    act(() => { sent = result.current.sendMessage('register_stove {"serial":"R-2"}') })
    await waitFor(() => { expect(result.current.pendingApprovals).toHaveLength(1) })
    const id = result.current.pendingApprovals[0]?.toolCallId ?? ''
    await act(async () => { await result.current.deny(id, 'not mine') })
    await act(async () => { await sent })
    expect(result.current.messages.at(-1)?.toolCalls?.[0]?.output)
      .toBe('The user declined: not mine. register_stove was not run.')
    expect(stoves.runs.length).toBe(before + 1)
    await act(async () => { await expect(result.current.approve(id)).rejects.toMatchObject({ status: 409 }) })
  })

  it('shows the requests a reloaded page finds waiting in history', async () => {
    const user = await testUser()
    const client = clientFor(user)
    const { sessionId } = await client.createSession()
    const stream = await client.streamMessage(sessionId, { message: 'register_stove {"serial":"R-3"}' })
    await new Promise<void>((resolve) => { stream.on((e) => { if (e.eventName === 'approval_request') resolve() }) })
    const { result } = renderHook(() => useChat({ sessionId }), { wrapper: wrapperFor(user) })
    await waitFor(() => { expect(result.current.pendingApprovals).toHaveLength(1) })
    await act(async () => { await result.current.deny(result.current.pendingApprovals[0]?.toolCallId ?? '') })
    expect(result.current.pendingApprovals).toEqual([])
    expect((await stream.done).toolCalls[0]?.output).toBe('The user declined to run register_stove; it was not run.')
  })
})
