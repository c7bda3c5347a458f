import { describe, expect, it } from 'vitest'
import { ADMIN, ENTITY_1, ENTITY_3, agent, buildGateway, fileNodeAndGateway } from '../helper.ts'
import { upstreamFiles } from '../upstream-protos.ts'

/** The node encodes with the shipped protos but hands out ixo-blockchain v8's own through reflection. */
const upstream = fileNodeAndGateway({ CHAIN_CACHE_ENABLED: 'false' }, {
  reflectedFiles: upstreamFiles(
    'ixo/entity/v1beta1/query.proto',
    'ixo/iid/v1beta1/query.proto',
    'ixo/claims/v1beta1/query.proto',
    'ixo/token/v1beta1/query.proto'
  )
})

const URLS = [
  '/ixo/entity/params',
  `/ixo/entity/${ENTITY_1}`,
  `/ixo/entity/${ENTITY_3}/metadata`,
  `/ixo/entity/${ENTITY_3}/iiddocument`,
  `/ixo/entity/${ENTITY_3}/verified`,
  '/ixo/entity?pagination.limit=3&pagination.count_total=true',
  '/ixo/did/dids?pagination.limit=3',
  '/ixo/did/dids/did:x:zQ3shDevUser1',
  '/ixo/claims/params',
  '/ixo/claims/collection/1',
  '/ixo/claims/collections',
  '/ixo/claims/claim/bafydevclaim001',
  '/ixo/claims/claims?pagination.reverse=true',
  '/ixo/claims/dispute/bafydevdisputeproof',
  '/ixo/claims/disputes',
  `/ixo/claims/intent/${agent(2)}/2/1`,
  '/ixo/claims/intents',
  `/ixo/claims/collection/1/member/${agent(7)}`,
  '/ixo/claims/collection/1/members',
  '/ixo/claims/dispute-by-subject/bafydevclaim003/DISPUTE_TARGET_ROLE_SUBMITTER',
  '/ixo/claims/disputes-for-subject/bafydevclaim003',
  `/ixo/claims/collection/1/deposit/${agent(1)}`,
  '/ixo/claims/collection/1/deposits',
  '/ixo/token/params',
  '/ixo/token/metadata/00000000000000000000000000000001',
  `/ixo/token/minter/${ADMIN}`
]
const MISSING = ['/ixo/entity/did:ixo:entity:missing', '/ixo/claims/claim/nope']

describe('shipped descriptors against ixo-blockchain v8 protos', () => {
  it('serves the same routes from the node\'s own descriptors', async () => {
    expect((await upstream.get('/')).json()).toMatchObject({ descriptors: 'reflection', routes: 27 })
  })

  it('answers every route as the upstream descriptors read the same bytes (fields we ship, same values)', async () => {
    const shipped = await buildGateway({
      CHAIN_GRPC_URL: upstream.node.url,
      CHAIN_DESCRIPTOR_SOURCE: 'bundled',
      CHAIN_CACHE_ENABLED: 'false'
    })
    try {
      for (const url of [...URLS, ...MISSING]) {
        const ours = await shipped.inject({ method: 'GET', url })
        if (!MISSING.includes(url)) expect(ours.statusCode, url).toBe(200)
        const theirs = await upstream.get(url)
        expect(theirs.statusCode, url).toBe(ours.statusCode)
        expect(theirs.json(), url).toMatchObject(ours.json())
      }
    } finally {
      await shipped.close()
    }
  })
})
