import { act, render, renderHook, waitFor } from '@testing-library/react'
import type { ReactNode } from 'react'
import { describe, expect, it } from 'vitest'
import {
  defineAgAction, defineBrowserTool, OracleStreamError, useChat, type ChatStatus, type TurnResult
} from '../src/index.ts'
import { testUser } from '../../oracle-client/test/support/runtime.ts'
import { ADMIN, holdFirstHistoryPage, reactRuntimes } from './support/runtimes.tsx'

const pageTitle = defineBrowserTool({
  name: 'get_page_title',
  description: 'The title of the open page',
  schema: { type: 'object' },
  handler: () => 'Example page'
})

describe('useChat against a real oracle runtime', () => {
  const r = reactRuntimes({ billed: true })
  const { wrapperFor, clientFor } = r

  it('moves the chat from submitted to streaming to ready and ends on the stored messages', async () => {
    const user = await testUser()
    const { sessionId } = await clientFor(user).createSession()
    const seen: Array<`${ChatStatus}:${boolean}`> = []
    const { result } = renderHook(() => {
      const chat = useChat({ sessionId })
      if (seen.at(-1) !== `${chat.status}:${chat.isSending}`) seen.push(`${chat.status}:${chat.isSending}`)
      return chat
    }, { wrapper: wrapperFor(user) })
    await waitFor(() => { expect(result.current.isLoadingHistory).toBe(false) })
    // Outside act() React commits each state as it happens, so every status the user would see is recorded.
    const actEnvironment = (globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT
    Object.assign(globalThis, { IS_REACT_ACT_ENVIRONMENT: false })
    try {
      await result.current.sendMessage('hello hooks')
      await waitFor(() => { expect(result.current.status).toBe('ready') })
    } finally {
      Object.assign(globalThis, { IS_REACT_ACT_ENVIRONMENT: actEnvironment })
    }
    expect(seen).toEqual(['ready:false', 'submitted:true', 'streaming:true', 'ready:false'])
    expect(result.current.messages.map((m) => [m.type, m.content.slice(0, 30), m.pending ?? false])).toEqual([
      ['human', 'hello hooks', false],
      ['ai', 'Hi! You said: "hello hooks". I', false]
    ])
    expect(result.current.messages.every((m) => m.id.startsWith('m_'))).toBe(true)
    expect(result.current.messages[1]?.reasoning).toMatch(/Matching/)
  })

  it('loads history newest first and older pages on demand', async () => {
    const user = await testUser()
    const client = clientFor(user)
    const { sessionId } = await client.createSession()
    for (const text of ['one', 'two', 'three']) await client.sendMessage(sessionId, { message: text })
    const { result } = renderHook(() => useChat({ sessionId, historyPageSize: 1 }), { wrapper: wrapperFor(user) })
    await waitFor(() => { expect(result.current.messages).toHaveLength(2) })
    expect(result.current.hasOlder).toBe(true)
    await act(async () => {
      await result.current.loadOlder()
    })
    await act(async () => {
      await result.current.loadOlder()
    })
    expect(result.current.messages.filter((m) => m.type === 'human').map((m) => m.content)).toEqual([
      'one',
      'two',
      'three'
    ])
    expect(result.current.hasOlder).toBe(false)
  })

  it('aborts an answer in flight and returns to ready', async () => {
    const user = await testUser()
    const { sessionId } = await clientFor(user).createSession()
    // No socket: nobody answers the browser tool, so the turn waits until it is aborted.
    const { result } = renderHook(() => useChat({ sessionId, browserTools: [pageTitle], socket: false }), {
      wrapper: wrapperFor(user)
    })
    let sent: Promise<unknown> = Promise.resolve()
    act(() => { sent = result.current.sendMessage('get_page_title') })
    await waitFor(() => { expect(result.current.messages.at(-1)?.toolCalls?.[0]?.name).toBe('get_page_title') })
    expect(result.current.status).toBe('streaming')
    await act(async () => { await result.current.abort() })
    await act(async () => { await sent })
    expect(result.current).toMatchObject({ status: 'ready', isSending: false, error: undefined })
    expect(result.current.messages.at(-1)).toMatchObject({ type: 'ai', metadata: { aborted: true } })
  })

  it('keeps an answer that started before the history arrived', async () => {
    const user = await testUser()
    const { sessionId } = await clientFor(user).createSession()
    // The first history page is held back until the tool call shows or half a second has passed.
    const page = holdFirstHistoryPage()
    const timer = setTimeout(page.release, 500)
    const { result } = renderHook(() => useChat({ sessionId, browserTools: [pageTitle], socket: false }), {
      wrapper: wrapperFor(user, r.runtime, { fetch: page.fetch })
    })
    let sent: Promise<unknown> = Promise.resolve()
    act(() => { sent = result.current.sendMessage('get_page_title') })
    expect(result.current.messages.map((m) => [m.type, m.content])).toEqual([['human', 'get_page_title']])
    await waitFor(() => { expect(result.current.messages.at(-1)?.toolCalls?.[0]?.name).toBe('get_page_title') })
    page.release()
    clearTimeout(timer)
    await waitFor(() => { expect(result.current.isLoadingHistory).toBe(false) })
    expect(result.current.messages.map((m) => m.type)).toEqual(['human', 'ai'])
    expect(result.current.messages.at(-1)?.toolCalls?.[0]?.name).toBe('get_page_title')
    await act(async () => { await result.current.abort() })
    await act(async () => { await sent })
    expect(result.current.status).toBe('ready')
  })

  it('stops a message still waiting for the history at once, and sends the next one', async () => {
    const user = await testUser()
    const { sessionId } = await clientFor(user).createSession()
    const page = holdFirstHistoryPage()
    const { result } = renderHook(() => useChat({ sessionId }), {
      wrapper: wrapperFor(user, r.runtime, { fetch: page.fetch })
    })
    try {
      let sent: Promise<unknown> = Promise.resolve()
      act(() => { sent = result.current.sendMessage('never sent') })
      expect(result.current.status).toBe('submitted')
      await act(async () => { await result.current.abort() })
      // At once: not when the held page finally arrives (here, never before the check).
      await act(async () => { await Promise.race([sent, new Promise((resolve) => setTimeout(resolve, 2000))]) })
      expect(result.current).toMatchObject({ status: 'ready', isSending: false, error: undefined, messages: [] })
    } finally {
      page.release()
    }
    await waitFor(() => {
      expect(result.current.isLoadingHistory).toBe(false)
    })
    await act(async () => {
      await result.current.sendMessage('hello again')
    })
    expect(result.current.messages.map((m) => [m.type, m.content.slice(0, 14)])).toEqual([
      ['human', 'hello again'],
      ['ai', 'Hi! You said: ']
    ])
  })

  it('lands only the newest history load: a reload overtakes a slow first page', async () => {
    const user = await testUser()
    const { sessionId } = await clientFor(user).createSession()
    const page = holdFirstHistoryPage()
    // Should a wait below hang, the held page is let go and the checks fail instead of the test timing out.
    const timer = setTimeout(page.release, 5000)
    const { result } = renderHook(() => useChat({ sessionId }), {
      wrapper: wrapperFor(user, r.runtime, { fetch: page.fetch })
    })
    try {
      await act(async () => { await result.current.reload() })
      await act(async () => { await result.current.sendMessage('after reload') })
      expect(result.current.messages.map((m) => m.type)).toEqual(['human', 'ai'])
    } finally {
      clearTimeout(timer)
      page.release()
    }
    // The first page (empty when it was read) arrives last and must not replace the conversation.
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(result.current.messages.map((m) => m.type)).toEqual(['human', 'ai'])
    expect(result.current.isLoadingHistory).toBe(false)
  })

  it('runs a browser tool over the session socket and an AG-UI action with its render', async () => {
    const user = await testUser()
    const { sessionId } = await clientFor(user).createSession()
    const notice = defineAgAction<{ text: string }, { shown: boolean }, ReactNode>({
      name: 'show_notice',
      description: 'Shows a notice',
      schema: { type: 'object', properties: { text: { type: 'string' } } },
      handler: () => ({ shown: true }),
      render: ({ args, status, result }) => (
        <span data-testid='notice'>{`${args.text} ${status} ${String(result?.shown)}`}</span>
      )
    })
    const { result } = renderHook(() => useChat({ sessionId, browserTools: [pageTitle], agActions: [notice] }), {
      wrapper: wrapperFor(user)
    })
    await waitFor(() => {
      expect(result.current.socketState).toBe('connected')
    })
    await act(async () => {
      await result.current.sendMessage('get_page_title')
    })
    expect(result.current.messages.at(-1)?.content).toContain('get_page_title: Example page')
    await act(async () => { await result.current.sendMessage('show_notice {"text":"hi"}') })
    const call = result.current.messages.at(-1)?.actionCalls?.[0]
    expect(call).toMatchObject({ toolName: 'show_notice', status: 'done' })
    expect(result.current.messages.at(-1)?.toolCalls).toBeUndefined()
    const view = render(<>{result.current.renderAction(call!)}</>)
    expect(view.getByTestId('notice').textContent).toBe('hi done true')
    // Reloaded from history, the stored call is still the action's, drawn the same way.
    await act(async () => { await result.current.reload() })
    const stored = result.current.messages.at(-1)?.actionCalls?.[0]
    expect(stored).toMatchObject({ toolName: 'show_notice', status: 'done', output: '{"shown":true}' })
    view.rerender(<>{result.current.renderAction(stored!)}</>)
    expect(view.getByTestId('notice').textContent).toBe('hi done true')
  })

  it('shows the oracle\'s re-authorisation prompt on the answer, stores a delegation and ends ready', async () => {
    const user = await testUser()
    const { sessionId } = await clientFor(user).createSession()
    const { result } = renderHook(() => useChat({ sessionId }), { wrapper: wrapperFor(user) })
    await waitFor(() => { expect(result.current.isLoadingHistory).toBe(false) })
    expect((await clientFor(user).getDelegationStatus()).authorized).toBe(false)
    let turn: TurnResult | undefined
    await act(async () => { turn = await result.current.sendMessage('read_meter please') })
    expect(turn?.outcome).toBe('completed')
    expect(result.current).toMatchObject({ status: 'ready', error: undefined })
    const answer = result.current.messages.at(-1)
    expect(answer).toMatchObject({
      type: 'ai',
      delegationPrompt: 'Authorise the oracle for meter/read to let it read your meter',
      toolCalls: [{ name: 'read_meter', status: 'error' }]
    })
    expect(answer?.error).toBeUndefined()
    await waitFor(async () => { expect((await clientFor(user).getDelegationStatus()).authorized).toBe(true) })
  })

  it('hands a payment requirement to the callback and stays ready; a provider failure ends in error', async () => {
    const user = await testUser()
    const { sessionId } = await clientFor(user, r.billed).createSession()
    const chatClaims: string[][] = []
    const providerClaims: string[][] = []
    const { result } = renderHook(() => useChat({ sessionId, onPaymentRequired: (ids) => chatClaims.push(ids) }), {
      wrapper: wrapperFor(user, r.billed, { onPaymentRequired: (ids) => providerClaims.push(ids) })
    })
    await waitFor(() => {
      expect(result.current.isLoadingHistory).toBe(false)
    })
    await act(async () => {
      expect(await result.current.sendMessage('hello')).toBeUndefined()
    })
    expect(chatClaims).toHaveLength(1)
    expect(chatClaims[0]?.[0]).toMatch(/\S/)
    expect(providerClaims).toEqual(chatClaims)
    expect(result.current).toMatchObject({ status: 'ready', isSending: false, error: undefined, messages: [] })

    await fetch(`${r.billed.baseUrl}/credits/grants`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ did: user.did, amount: 5 })
    })
    await act(async () => {
      await result.current.sendMessage('hello again')
    })
    expect(result.current.status).toBe('error')
    expect(result.current.error).toBeInstanceOf(OracleStreamError)
    expect(result.current.error?.message).toMatch(/^The model provider failed/)
    act(() => { result.current.clearError() })
    expect(result.current.status).toBe('ready')
  })
})
