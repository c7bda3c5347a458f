import { describe, expect, it } from 'vitest'
import { ADMIN, agent, fileNodeAndGateway, ENTITY_1, ENTITY_3 } from '../helper.ts'

const { get } = fileNodeAndGateway()

describe('GET /ixo/claims/…', () => {
  it('renders cosmos.Dec params as decimals and uint64 as strings', async () => {
    expect((await get('/ixo/claims/params')).json()).toEqual({
      params: {
        collection_sequence: '4',
        ixo_account: ADMIN,
        network_fee_percentage: '0.100000000000000000',
        node_fee_percentage: '0.050000000000000000',
        intent_sequence: '2'
      }
    })
  })

  it('returns a collection with enums as names, durations and nested payments', async () => {
    const { collection } = (await get('/ixo/claims/collection/1')).json()
    expect(collection).toMatchObject({
      id: '1',
      entity: ENTITY_3,
      quota: '1000',
      count: '4',
      state: 'OPEN',
      intents: 'ALLOW',
      flagged: '0',
      service_agent_deposit_required: [{ denom: 'uixo', amount: '5000000' }],
      min_deposit_period: '86400s',
      adjudicators: [
        { did: 'did:ixo:entity:0000000000000000000000000000e005', reward_percentage: '20.000000000000000000' }
      ]
    })
    expect(collection.payments.approval).toEqual({
      account: ADMIN,
      amount: [{ denom: 'uixo', amount: '250000' }],
      contract_1155_payment: null,
      timeout_ns: '0s',
      cw20_payment: [],
      is_oracle_payment: false,
      cw1155_payment: []
    })
    expect((await get('/ixo/claims/collection/2')).json().collection).toMatchObject({
      state: 'PAUSED',
      intents: 'REQUIRED'
    })
    const { collections } = (await get('/ixo/claims/collections')).json()
    expect(collections.map((c: { id: string }) => c.id)).toEqual(['1', '2', '3'])
  })

  it('pages through /ixo/claims/claims with next_key until it is null', async () => {
    const seen: string[] = []
    let key: string | null = ''
    let pages = 0
    while (key !== null) {
      const res = await get(
        `/ixo/claims/claims?pagination.limit=5${key === '' ? '' : `&pagination.key=${encodeURIComponent(key)}`}`
      )
      expect(res.statusCode).toBe(200)
      const body = res.json()
      seen.push(...body.claims.map((c: { claim_id: string }) => c.claim_id))
      key = body.pagination.next_key
      pages++
    }
    expect(pages).toBe(3)
    expect(seen).toHaveLength(12)
    expect(new Set(seen).size).toBe(12)
  })

  it('serves claims with evaluations, and unknown claims as upstream does (500, code 2)', async () => {
    const { claim } = (await get('/ixo/claims/claim/bafydevclaim001')).json()
    expect(claim.evaluation).toMatchObject({
      status: 'APPROVED',
      reason: 0,
      evaluation_date: '2024-06-01T00:00:00Z',
      amount: []
    })
    expect(claim.payments_status).toEqual({
      submission: 'NO_PAYMENT',
      evaluation: 'PAID',
      approval: 'PAID',
      rejection: 'NO_PAYMENT'
    })
    const missing = await get('/ixo/claims/claim/nope')
    expect(missing.statusCode).toBe(500)
    expect(missing.json()).toEqual({ code: 2, message: 'claim not found: for id nope', details: [] })
  })

  it('serves disputes, intents, members and deposits (v7 routes)', async () => {
    expect((await get('/ixo/claims/dispute/bafydevdisputeproof')).json().dispute).toMatchObject({
      subject_id: 'bafydevclaim003',
      target_role: 'DISPUTE_TARGET_ROLE_SUBMITTER',
      status: 'DISPUTE_STATUS_OPEN',
      resolution: null
    })
    expect((await get('/ixo/claims/disputes')).json().disputes).toHaveLength(1)
    const bySubject = '/ixo/claims/dispute-by-subject/bafydevclaim003'
    expect((await get(`${bySubject}/1`)).json().dispute.subject_id).toBe('bafydevclaim003')
    expect((await get(`${bySubject}/DISPUTE_TARGET_ROLE_SUBMITTER`)).statusCode).toBe(200)
    expect((await get(`${bySubject}/DISPUTE_TARGET_ROLE_EVALUATOR`)).statusCode).toBe(500)
    const badEnum = await get(`${bySubject}/SOMEONE`)
    expect(badEnum.statusCode).toBe(400)
    expect(badEnum.json().message).toMatch(
      /^type mismatch, parameter: targetRole, error: .*DISPUTE_TARGET_ROLE_SUBMITTER/
    )
    expect((await get('/ixo/claims/disputes-for-subject/bafydevclaim003')).json()).toEqual({
      disputes: [expect.objectContaining({ subject_id: 'bafydevclaim003' })]
    })
    const intent = (await get(`/ixo/claims/intent/${agent(2)}/2/1`)).json().intent
    expect(intent).toMatchObject({
      id: '1',
      status: 'FULFILLED',
      created_at: '2024-05-02T09:00:00Z',
      amount: [{ denom: 'uixo', amount: '250000' }]
    })
    expect((await get('/ixo/claims/intents')).json().intents).toHaveLength(1)
    expect((await get(`/ixo/claims/collection/1/member/${agent(7)}`)).json().member_budget).toMatchObject({
      period: '2592000s',
      period_spent: [{ denom: 'uixo', amount: '250000' }]
    })
    expect((await get('/ixo/claims/collection/1/members')).json().member_budgets).toHaveLength(1)
    expect((await get(`/ixo/claims/collection/1/deposit/${agent(1)}`)).json().balance).toMatchObject({
      amount: [{ denom: 'uixo', amount: '5000000' }]
    })
    expect((await get('/ixo/claims/collection/1/deposits')).json()).toMatchObject({
      balances: [expect.any(Object)],
      pagination: { next_key: null, total: '1' }
    })
  })
})

describe('GET /ixo/token/…', () => {
  const contract = 'ixo1dev0contract00000000000000000000000000000000000000000000'

  it('serves params, token lists, token docs and metadata', async () => {
    expect((await get('/ixo/token/params')).json()).toEqual({ params: { ixo1155_contract_code: '1' } })
    const list = (await get(`/ixo/token/minter/${ADMIN}`)).json()
    expect(list).toMatchObject({
      pagination: { next_key: null, total: '1' },
      tokenDocs: [{ contract_address: contract, cap: '0', supply: '1500' }]
    })
    const doc = (await get(`/ixo/token/minter/${ADMIN}/${contract}`)).json().tokenDoc
    expect(doc).toMatchObject({
      class: ENTITY_1,
      name: 'CARBON',
      retired: [{ id: 'dev-retire-1', amount: '10' }],
      cancelled: [],
      transferred: []
    })
    const metadata = (await get('/ixo/token/metadata/00000000000000000000000000000001')).json()
    expect(metadata).toMatchObject({
      name: 'CARBON',
      decimals: '0',
      properties: { class: ENTITY_1, linkedResources: [{ uri: 'ipfs://bafydevcredential', encrypted: false }] }
    })
  })

  it('answers a missing token doc as upstream does (500, code 2)', async () => {
    const res = await get(`/ixo/token/minter/${ADMIN}/ixo1nothing`)
    expect(res.statusCode).toBe(500)
    expect(res.json().code).toBe(2)
  })
})
