import type { UseSessionsResult } from '@impact/oracle-react'

export interface SessionsProps {
  list: UseSessionsResult
  selected: string | undefined
  onSelect: (sessionId: string | undefined) => void
}

export function Sessions ({ list, selected, onSelect }: SessionsProps) {
  const { sessions, isLoading, error, hasMore, loadMore, createSession, deleteSession } = list
  return (
    <nav className='sessions' aria-label='Chat sessions'>
      <button
        type='button'
        id='new-chat'
        onClick={() => {
          createSession().then(
            (s) => {
              onSelect(s.sessionId)
            },
            () => {}
          )
        }}
      >
        New chat
      </button>
      {error !== undefined && (
        <p className='error' role='alert'>
          {error.message}
        </p>
      )}
      <ul>
        {sessions.map((s) => (
          <li key={s.sessionId} className={s.sessionId === selected ? 'active' : ''} data-testid='session'>
            <button type='button' className='title' onClick={() => { onSelect(s.sessionId) }}>{s.title}</button>
            <button
              type='button'
              className='link'
              aria-label={`Delete ${s.title}`}
              onClick={() => {
                deleteSession(s.sessionId).then(
                  () => {
                    if (s.sessionId === selected) onSelect(undefined)
                  },
                  () => {}
                )
              }}
            >
              ×
            </button>
          </li>
        ))}
      </ul>
      {isLoading && <p className='meta'>Loading…</p>}
      {hasMore && !isLoading && (
        <button
          type='button'
          className='link'
          onClick={() => {
            loadMore().catch(() => {})
          }}
        >
          Load more
        </button>
      )}
    </nav>
  )
}
