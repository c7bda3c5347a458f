import { act, renderHook, waitFor } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import { useSessions } from '../src/index.ts'
import { testUser } from '../../oracle-client/test/support/runtime.ts'
import { reactRuntimes } from './support/runtimes.tsx'

describe('useSessions against a real oracle runtime', () => {
  const { wrapperFor, clientFor } = reactRuntimes()

  it('pages through sessions and creates and deletes them', async () => {
    const user = await testUser()
    const client = clientFor(user)
    for (let i = 0; i < 3; i++) await client.createSession()
    const { result } = renderHook(() => useSessions({ pageSize: 2 }), { wrapper: wrapperFor(user) })
    await waitFor(() => { expect(result.current.sessions).toHaveLength(2) })
    expect(result.current).toMatchObject({ total: 3, hasMore: true, isLoading: false })
    await act(async () => { await result.current.loadMore() })
    expect(result.current.sessions).toHaveLength(3)
    expect(result.current.hasMore).toBe(false)
    let created = ''
    await act(async () => { created = (await result.current.createSession()).sessionId })
    expect(result.current.sessions[0]?.sessionId).toBe(created)
    await act(async () => { await result.current.deleteSession(created) })
    expect(result.current.sessions.map((s) => s.sessionId)).not.toContain(created)
    expect(result.current.total).toBe(3)
    // One pair for the set-up client above, one for the provider's whole life.
    expect(user.minted).toEqual({ delegation: 2, invocation: 2 })
  })
})
