import { renderHook } from '@testing-library/react'
import { describe, expect, it, vi } from 'vitest'
import { useChat, useOracleClient, useSessions } from '../src/index.ts'

describe('OracleProvider', () => {
  it('throws from every hook used outside the provider', () => {
    const quiet = vi.spyOn(console, 'error').mockImplementation(() => {})
    expect(() => renderHook(() => useChat({ sessionId: 's_1' }))).toThrow(
      'useChat must be used within an <OracleProvider>'
    )
    expect(() => renderHook(() => useSessions())).toThrow('useSessions must be used within an <OracleProvider>')
    expect(() => renderHook(() => useOracleClient())).toThrow('useOracleClient must be used within an <OracleProvider>')
    quiet.mockRestore()
  })
})
