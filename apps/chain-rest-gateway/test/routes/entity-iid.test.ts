import { describe, expect, it } from 'vitest'
import { fileNodeAndGateway, ENTITY_1, ENTITY_3 } from '../helper.ts'

const { get } = fileNodeAndGateway()

describe('GET /ixo/entity/{id}', () => {
  it('returns the entity and its DID document with proto field names and gogo defaults', async () => {
    const res = await get(`/ixo/entity/${ENTITY_1}`)
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toMatch(/^application\/json/)
    const body = res.json()
    expect(body.entity).toEqual({
      id: ENTITY_1,
      type: 'protocol',
      start_date: '2024-01-01T00:00:00Z',
      end_date: null,
      status: 0,
      relayer_node: ENTITY_1,
      credentials: [],
      entity_verified: true,
      metadata: { version_id: '1', created: '2024-01-02T03:04:05Z', updated: '2024-01-02T03:04:05Z' },
      accounts: [{ name: 'admin', address: 'ixo1dev0entity00000000000000000000000001' }]
    })
    expect(body.iidDocument).toMatchObject({
      context: [{ key: 'ixo', val: 'https://w3id.org/ixo/context/v1' }],
      id: ENTITY_1,
      verificationMethod: [
        {
          id: `${ENTITY_1}#key-1`,
          type: 'EcdsaSecp256k1VerificationKey2019',
          controller: ENTITY_1,
          publicKeyMultibase: expect.stringMatching(/^zDev/)
        }
      ],
      keyAgreement: [],
      linkedResource: [],
      alsoKnownAs: '',
      metadata: {
        versionId: 'v1',
        created: '2024-01-02T03:04:05Z',
        updated: '2024-03-04T05:06:07.250Z',
        deactivated: false
      }
    })
    expect(body.iidDocument.verificationMethod[0]).not.toHaveProperty('publicKeyHex')
  })

  it('serves metadata, iiddocument and verified sub-routes', async () => {
    expect((await get(`/ixo/entity/${ENTITY_3}/metadata`)).json().entity.type).toBe('project')
    expect((await get(`/ixo/entity/${ENTITY_3}/iiddocument`)).json().iidDocument.id).toBe(ENTITY_3)
    expect((await get(`/ixo/entity/${ENTITY_3}/verified`)).json()).toEqual({ entity_verified: true })
    expect((await get('/ixo/entity/did:ixo:entity:0000000000000000000000000000e002/verified')).json()).toEqual({
      entity_verified: false
    })
  })

  it('prefers the static /ixo/entity/params over {id}', async () => {
    const res = await get('/ixo/entity/params')
    expect(res.json()).toEqual({
      params: { nftContractAddress: expect.any(String), nftContractMinter: expect.any(String), createSequence: '7' }
    })
  })

  it('answers 404 with the node message for an unknown entity and 400 for an empty id', async () => {
    const missing = await get('/ixo/entity/did:ixo:entity:missing')
    expect(missing.statusCode).toBe(404)
    expect(missing.json()).toEqual({ code: 5, message: 'did document not found', details: [] })
    const empty = await get('/ixo/entity/')
    expect(empty.statusCode).toBe(400)
    expect(empty.json()).toEqual({ code: 3, message: 'invalid request', details: [] })
  })

  it('rejects a %2F inside a one-segment variable as an unknown route', async () => {
    const res = await get('/ixo/entity/did%2Fother')
    expect(res.statusCode).toBe(404)
    expect(res.json().code).toBe(5)
  })
})

describe('GET /ixo/entity', () => {
  it('lists entities with Cosmos pagination (limit 0 → all, total counted)', async () => {
    const body = (await get('/ixo/entity')).json()
    expect(body.entities).toHaveLength(7)
    expect(body.pagination).toEqual({ next_key: null, total: '7' })
  })
})

describe('GET /ixo/did/dids', () => {
  it('lists and fetches DID documents', async () => {
    const list = (await get('/ixo/did/dids?pagination.limit=3')).json()
    expect(list.iidDocuments).toHaveLength(3)
    expect(list.pagination.total).toBe('0')
    expect(typeof list.pagination.next_key).toBe('string')
    const one = await get('/ixo/did/dids/did:x:zQ3shDevUser1')
    expect(one.json().iidDocument.id).toBe('did:x:zQ3shDevUser1')
  })

  it('answers 404 for an unknown DID', async () => {
    const res = await get('/ixo/did/dids/did:x:nobody')
    expect(res.statusCode).toBe(404)
    expect(res.json()).toEqual({ code: 5, message: 'did document not found', details: [] })
  })
})
