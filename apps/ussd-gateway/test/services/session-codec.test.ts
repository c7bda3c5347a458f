import { describe, expect, it } from 'vitest'
import { MASK } from '../../src/services/cumulative-text.ts'
import { decodeSession, encodeSession, type Session } from '../../src/services/session.ts'

const base: Session = {
  id: 'ATUid_1',
  phone: '+254711000001',
  serviceCode: '*384*123#',
  state: 'createPin',
  page: 1,
  language: 'sw',
  keptText: `2*2*Jane*00*${MASK.repeat(5)}`,
  message: 'Create a 5-digit PIN:\n0. Back',
  startedAt: 1_763_700_000_000
}

describe('stored session records', () => {
  it('round-trips every field, optional ones included', () => {
    const full: Session = {
      ...base,
      networkCode: '63902',
      sequence: 3,
      flash: { key: 'error.invalidChoice' },
      topic: 2,
      customerId: 'C-1',
      name: 'Jane',
      email: 'jane@example.org',
      loginId: 'C-1',
      draftName: 'Jane',
      draftEmail: 'j@example.org',
      draftPin: 'sealed',
      pinVersion: 4,
      accountPhone: '+254711000002',
      creationKey: 'k3Y-0f_a-sign-up',
      hops: 7,
      roles: ['household', 'agent'],
      oracleSessionId: 's_0b7e41a3',
      questionId: '5d8a2c9f-0b7e-41a3-b6c2-d9e8f7a6b5c4',
      answer: 'Let the stove cool, then brush the chimney.',
      domains: [{ did: 'did:ixo:entity:1', label: 'SN-1', status: 'verified', date: '2026-12-01' }],
      domain: { did: 'did:ixo:entity:1', label: 'SN-1', status: 'draft' },
      stove: { serial: 'SN-2', household: { customerId: 'C-2', name: 'Achieng', did: 'did:key:z6Mk' }, key: 'k' },
      recovered: { ids: ['C-1', 'C-2'], sms: true }
    }
    expect(decodeSession(encodeSession(full))).toEqual(full)
  })

  it('reads absent optional fields back as undefined and keeps records small', () => {
    const text = encodeSession(base)
    expect(text.length).toBeLessThan(200)
    const decoded = decodeSession(text)
    expect(decoded).toMatchObject(base)
    expect(decoded?.customerId).toBeUndefined()
    expect(decoded?.draftPin).toBeUndefined()
  })

  it('reads a format 3 record, whose masks were #, with the masks of today', () => {
    const format3 = '[3,"ATUid_1","+254711000001","*384*123#",null,"createPinConfirm",0,"en",' +
      '"2*2*Jane*00*#####",null,"Confirm"]'
    expect(decodeSession(format3))
      .toMatchObject({ state: 'createPinConfirm', keptText: `2*2*Jane*00*${MASK.repeat(5)}` })
  })

  it('refuses records that are corrupt, foreign or of another format', () => {
    // Formats 1 and 2 kept a digest of the text (SHA3-256, then SHA-256); they must not be continued.
    const refused = [
      '[1,"id","+254711000001","*1#",null,"preMenu",0,"en",0,"",null,"m"]',
      '[2,"id","+254711000001","*1#",null,"preMenu",0,"en",0,"",null,"m"]',
      'not json',
      '{"id":"x"}',
      '[3,"id","+254711000001"]',
      '[3,"id"]',
      '[3,5,"+254711000001","*1#",null,"preMenu",0,"en","",null,"m"]'
    ]
    for (const text of refused) {
      expect(decodeSession(text)).toBeUndefined()
    }
  })
})
