import { useCallback, useEffect, useRef, useState } from 'react'
import type { ChatSession } from '@impact/oracle-client'
import { useOracleContext } from './provider.tsx'

export interface UseSessionsOptions {
  /** Sessions per page (default 20, at most 100). */
  pageSize?: number
  /** Load the first page on mount (default true). */
  enabled?: boolean
}

export interface UseSessionsResult {
  sessions: ChatSession[]
  total: number
  isLoading: boolean
  error: Error | undefined
  /** More sessions exist beyond those loaded. */
  hasMore: boolean
  /** Loads the next page: offset = sessions loaded so far; stops at `total` or an empty page. */
  loadMore: () => Promise<void>
  /** Reloads from the first page. */
  refresh: () => Promise<void>
  createSession: () => Promise<ChatSession>
  deleteSession: (sessionId: string) => Promise<void>
}

/** The user's chat sessions, most recently active first, paged as the oracle SDK pages them. */
export function useSessions (options: UseSessionsOptions = {}): UseSessionsResult {
  const { client } = useOracleContext('useSessions')
  const pageSize = options.pageSize ?? 20
  const enabled = options.enabled ?? true
  const [sessions, setSessions] = useState<ChatSession[]>([])
  const [total, setTotal] = useState(0)
  const [exhausted, setExhausted] = useState(false)
  const [isLoading, setLoading] = useState(enabled)
  const [error, setError] = useState<Error | undefined>()
  // Each load belongs to a generation: a refresh (or a new client) makes older answers void.
  const generation = useRef(0)
  const loaded = useRef<ChatSession[]>([])

  const load = useCallback(async (reset: boolean) => {
    const mine = reset ? ++generation.current : generation.current
    const offset = reset ? 0 : loaded.current.length
    setLoading(true)
    try {
      const page = await client.listSessions({ limit: pageSize, offset })
      if (mine !== generation.current) return
      const known = new Set(reset ? [] : loaded.current.map((s) => s.sessionId))
      const next = [...(reset ? [] : loaded.current), ...page.sessions.filter((s) => !known.has(s.sessionId))]
      loaded.current = next
      setSessions(next)
      setTotal(page.total)
      setExhausted(page.sessions.length === 0 || offset + page.sessions.length >= page.total)
      setError(undefined)
    } catch (caught) {
      if (mine === generation.current) setError(caught as Error)
    } finally {
      if (mine === generation.current) setLoading(false)
    }
  }, [client, pageSize])

  useEffect(() => {
    loaded.current = []
    setSessions([])
    setTotal(0)
    setExhausted(false)
    if (enabled) load(true).catch(() => {})
    return () => { generation.current++ }
  }, [load, enabled])

  const loadMore = useCallback(async () => { if (!exhausted) await load(false) }, [load, exhausted])
  const refresh = useCallback(async () => { await load(true) }, [load])

  const createSession = useCallback(async () => {
    const session = await client.createSession()
    loaded.current = [session, ...loaded.current.filter((s) => s.sessionId !== session.sessionId)]
    setSessions(loaded.current)
    setTotal((t) => t + 1)
    return session
  }, [client])

  const deleteSession = useCallback(async (sessionId: string) => {
    await client.deleteSession(sessionId)
    loaded.current = loaded.current.filter((s) => s.sessionId !== sessionId)
    setSessions(loaded.current)
    setTotal((t) => Math.max(0, t - 1))
  }, [client])

  return {
    sessions,
    total,
    isLoading,
    error,
    hasMore: !exhausted && sessions.length < total,
    loadMore,
    refresh,
    createSession,
    deleteSession
  }
}
