import { useEffect, useMemo, useRef, useState, type FormEvent } from 'react'
import { useChat, type TurnResult } from '@impact/oracle-react'
import { Approvals } from './approvals.tsx'
import { MessageView } from './message-view.tsx'
import { browserTools, noticeAction, type Notice } from './tools.tsx'

const STATUS_TEXT = { ready: 'Ready', submitted: 'Sending…', streaming: 'Answering…', error: 'The last answer failed' }

export interface ChatProps {
  sessionId: string | undefined
  /** Creates a session when the user sends without one. */
  ensureSession: () => Promise<string>
  onTurnEnd: (result: TurnResult) => void
}

export function Chat ({ sessionId, ensureSession, onTurnEnd }: ChatProps) {
  const [notices, setNotices] = useState<Notice[]>([])
  const agActions = useMemo(() => [noticeAction((notice) => { setNotices((list) => [...list.slice(-2), notice]) })], [])
  const chat = useChat({ sessionId, browserTools, agActions, onFinish: onTurnEnd })
  const [draft, setDraft] = useState('')
  const [queued, setQueued] = useState<string | undefined>()
  const bottom = useRef<HTMLDivElement>(null)

  // A message typed before any session existed goes out once the new session is open.
  useEffect(() => {
    if (queued === undefined || sessionId === undefined || chat.isLoadingHistory || chat.isSending) return
    setQueued(undefined)
    chat.sendMessage(queued).catch(() => {})
  }, [queued, sessionId, chat])

  useEffect(() => { bottom.current?.scrollIntoView?.({ block: 'end' }) }, [chat.messages])

  const submit = (event: FormEvent) => {
    event.preventDefault()
    const text = draft.trim()
    if (text === '' || chat.isSending) return
    setDraft('')
    if (sessionId === undefined) {
      setQueued(text)
      ensureSession().catch(() => { setQueued(undefined) })
      return
    }
    chat.sendMessage(text).catch(() => {})
  }

  return (
    <section className='chat' aria-label='Chat'>
      {notices.map((n) => <div key={n.id} className='notice' data-testid='notice'>{n.text}</div>)}
      <div className='messages'>
        {chat.hasOlder && (
          <button
            type='button'
            className='link'
            onClick={() => {
              chat.loadOlder().catch(() => {})
            }}
          >
            Load older messages
          </button>
        )}
        {sessionId === undefined && <p className='meta centered'>Start a new chat, or just type below.</p>}
        {chat.messages.map((m) => <MessageView key={m.id} message={m} renderAction={chat.renderAction} />)}
        <div ref={bottom} />
      </div>
      <Approvals pending={chat.pendingApprovals} approve={chat.approve} deny={chat.deny} />
      <p className='status' data-testid='chat-status' data-status={chat.status} role='status'>
        {chat.status === 'streaming' && chat.pendingApprovals.length > 0
          ? 'Waiting for your approval…'
          : STATUS_TEXT[chat.status]}
        {chat.error !== undefined ? `: ${chat.error.message}` : ''}
        {chat.socketState !== 'off' && <span className='meta'> · tools {chat.socketState}</span>}
      </p>
      <form className='composer' onSubmit={submit}>
        <textarea
          id='composer'
          value={draft}
          placeholder='Message the oracle (try "get_page_title" or show_notice {"text":"Hi"})'
          onChange={(e) => { setDraft(e.target.value) }}
          onKeyDown={(e) => { if (e.key === 'Enter' && !e.shiftKey) submit(e) }}
        />
        {chat.isSending
          ? <button type='button' id='stop' onClick={() => { chat.abort().catch(() => {}) }}>Stop</button>
          : <button type='submit' id='send' disabled={draft.trim() === ''}>Send</button>}
      </form>
    </section>
  )
}
