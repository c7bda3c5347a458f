import { describe, expect, it } from 'vitest'
import { covers, ORACLE_AUTH_CAPABILITY } from '../src/index.ts'

describe('covers', () => {
  it.each([
    [[{ can: '*', with: 'ixo:oracle' }], true],
    [[{ can: '*', with: 'ucan:*' }], true],
    [[{ can: 'memory/*', with: 'ixo:memory' }, { can: '*', with: 'ixo:oracle' }], true],
    [[{ can: 'memory/read', with: 'ixo:memory' }], false],
    [[{ can: 'subscriptions/read', with: 'ixo:subscriptions' }], false],
    [[{ can: 'chat/*', with: 'ixo:oracle' }], false],
    [[{ can: '*', with: 'ixo:memory' }], false],
    [[], false]
  ])('%j covers * on ixo:oracle: %s', (granted, expected) => {
    expect(covers(granted, ORACLE_AUTH_CAPABILITY)).toBe(expected)
  })

  it('matches an ability by prefix wildcard', () => {
    expect(covers([{ can: 'memory/*', with: 'ixo:memory' }], { can: 'memory/read', with: 'ixo:memory' })).toBe(true)
    expect(covers([{ can: 'memory/*', with: 'ixo:memory' }], { can: 'memoryx/read', with: 'ixo:memory' })).toBe(false)
    const read = [{ can: 'memory/read', with: 'ixo:memory' }]
    expect(covers(read, { can: 'memory/write', with: 'ixo:memory' })).toBe(false)
  })
})
