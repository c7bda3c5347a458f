/**
 * DEVELOPMENT FIXTURE: invented sample records for the development node, shaped as
 * @bufbuild/protobuf init objects of the ixo messages. Nothing here is real chain data.
 * `height` is the block at which a record appears, so height-pinned queries see history.
 */
export type Init = Record<string, unknown>
export interface Versioned { height: number, value: Init }

const ts = (iso: string) => {
  const millis = Date.parse(iso)
  return { seconds: BigInt(Math.floor(millis / 1000)), nanos: (millis % 1000) * 1_000_000 }
}
const coin = (amount: string, denom = 'uixo') => ({ denom, amount })
const ADMIN = 'ixo1dev0admin0000000000000000000000000000'
const hex = (n: number) => n.toString(16).padStart(32, '0')

export const ENTITY_TYPES = ['protocol', 'dao', 'project', 'asset', 'oracle', 'asset', 'project']
export const entityDid = (n: number) => `did:ixo:entity:${hex(0xe000 + n)}`
export const agentAddress = (n: number) => `ixo1dev0agent${String(n).padStart(27, '0')}`

function iidDocument (id: string, n: number): Init {
  return {
    context: [{ key: 'ixo', val: 'https://w3id.org/ixo/context/v1' }],
    id,
    controller: [id],
    verificationMethod: [{
      id: `${id}#key-1`,
      type: 'EcdsaSecp256k1VerificationKey2019',
      controller: id,
      verificationMaterial: { case: 'publicKeyMultibase', value: `zDev${hex(n)}` }
    }],
    service: [{ id: `${id}#api`, type: 'LinkedDomains', serviceEndpoint: 'https://example.org/dev' }],
    authentication: [`${id}#key-1`],
    assertionMethod: [`${id}#key-1`],
    linkedResource:
      n % 2 === 0
        ? [
            {
              type: 'Settings',
              id: `${id}#profile`,
              description: 'Profile',
              mediaType: 'application/ld+json',
              serviceEndpoint: 'ipfs:bafydevprofile',
              proof: 'bafydevprofile',
              encrypted: 'false',
              right: ''
            }
          ]
        : [],
    alsoKnownAs: '',
    metadata: {
      versionId: `v${n}`,
      created: ts('2024-01-02T03:04:05Z'),
      updated: ts('2024-03-04T05:06:07.250Z'),
      deactivated: false
    }
  }
}

export function buildSampleData () {
  const entities: Versioned[] = ENTITY_TYPES.map((type, i) => ({
    height: 5 + i * 10,
    value: {
      id: entityDid(i + 1),
      type,
      startDate: ts('2024-01-01T00:00:00Z'),
      endDate: i % 3 === 0 ? undefined : ts('2030-12-31T23:59:59Z'),
      status: i % 4 === 3 ? 1 : 0,
      relayerNode: entityDid(1),
      credentials: [],
      entityVerified: i % 2 === 0,
      metadata: { versionId: `${i + 1}`, created: ts('2024-01-02T03:04:05Z'), updated: ts('2024-01-02T03:04:05Z') },
      accounts: [{ name: 'admin', address: `ixo1dev0entity${String(i + 1).padStart(26, '0')}` }]
    }
  }))
  const iidDocuments: Versioned[] = [
    ...entities.map((e, i) => ({ height: e.height, value: iidDocument(e.value.id as string, i + 1) })),
    { height: 1, value: iidDocument('did:x:zQ3shDevUser1', 100) },
    { height: 1, value: iidDocument('did:x:zQ3shDevUser2', 101) }
  ]

  const payment = (amount: string) => ({
    account: ADMIN,
    amount: [coin(amount)],
    timeoutNs: { seconds: 0n, nanos: 0 },
    cw20Payment: [],
    isOraclePayment: false,
    cw1155Payment: []
  })
  const collections: Versioned[] = [1, 2, 3].map((n) => ({
    height: 20 + n,
    value: {
      id: String(n),
      entity: entityDid(3),
      admin: ADMIN,
      protocol: entityDid(1),
      startDate: ts('2024-02-01T00:00:00Z'),
      endDate: n === 3 ? undefined : ts('2026-02-01T00:00:00Z'),
      quota: BigInt(n * 1000),
      count: 4n,
      evaluated: 3n,
      approved: 2n,
      rejected: 1n,
      disputed: n === 1 ? 1n : 0n,
      state: n - 1,
      payments: {
        submission: payment('0'),
        evaluation: payment('1000'),
        approval: payment('250000'),
        rejection: payment('0')
      },
      signer: ADMIN,
      escrowAccount: `ixo1dev0escrow${String(n).padStart(26, '0')}`,
      intents: n === 2 ? 2 : 0,
      serviceAgentDepositRequired: n === 1 ? [coin('5000000')] : [],
      minDepositPeriod: { seconds: 86_400n, nanos: 0 },
      adjudicators: n === 1 ? [{ did: entityDid(5), rewardPercentage: '20000000000000000000' }] : []
    }
  }))

  const claims: Versioned[] = Array.from({ length: 12 }, (_unused, i) => ({
    height: 30 + i,
    value: {
      collectionId: String((i % 3) + 1),
      agentDid: `did:x:zQ3shDevAgent${i}`,
      agentAddress: agentAddress(i),
      submissionDate: ts(`2024-05-${String(i + 1).padStart(2, '0')}T10:00:00.123456789Z`),
      claimId: `bafydevclaim${String(i).padStart(3, '0')}`,
      evaluation:
        i % 4 === 0
          ? undefined
          : {
              claimId: `bafydevclaim${String(i).padStart(3, '0')}`,
              collectionId: String((i % 3) + 1),
              oracle: entityDid(5),
              agentDid: 'did:x:zQ3shDevEvaluator',
              agentAddress: agentAddress(99),
              status: i % 4,
              reason: 0,
              verificationProof: `bafydevproof${i}`,
              evaluationDate: ts('2024-06-01T00:00:00Z'),
              amount: []
            },
      paymentsStatus: { submission: 0, evaluation: 4, approval: i % 4 === 1 ? 4 : 1, rejection: 0 },
      useIntent: i === 2,
      amount: i === 2 ? [coin('250000')] : [],
      memberAddress: ''
    }
  }))

  const disputes: Versioned[] = [{
    height: 45,
    value: {
      subjectId: 'bafydevclaim003',
      type: 1,
      data: { uri: 'ipfs://bafydevdispute', type: 'application/json', proof: 'bafydevdisputeproof', encrypted: false },
      targetRole: 1,
      disputerAddress: agentAddress(50),
      disputerDid: 'did:x:zQ3shDevDisputer',
      disputeDeposit: [coin('1000000')],
      submittedAt: ts('2024-06-10T12:00:00Z'),
      status: 0
    }
  }]

  const intents: Versioned[] = [{
    height: 31,
    value: {
      id: '1',
      agentDid: 'did:x:zQ3shDevAgent2',
      agentAddress: agentAddress(2),
      collectionId: '2',
      claimId: 'bafydevclaim002',
      createdAt: ts('2024-05-02T09:00:00Z'),
      expireAt: ts('2024-05-09T09:00:00Z'),
      status: 1,
      amount: [coin('250000')],
      fromAddress: ADMIN,
      escrowAddress: `ixo1dev0escrow${'2'.padStart(26, '0')}`,
      memberAddress: ''
    }
  }]

  const memberBudgets: Versioned[] = [{
    height: 25,
    value: {
      collectionId: '1',
      memberAddress: agentAddress(7),
      period: { seconds: 2_592_000n, nanos: 0 },
      periodSpendLimit: [coin('10000000')],
      periodSpent: [coin('250000')],
      periodResetAt: ts('2024-07-01T00:00:00Z')
    }
  }]

  const deposits: Versioned[] = [
    {
      height: 26,
      value: {
        collectionId: '1',
        agentAddress: agentAddress(1),
        amount: [coin('5000000')],
        withdrawableAt: ts('2024-05-03T00:00:00Z')
      }
    }
  ]

  const tokenAddress = 'ixo1dev0contract00000000000000000000000000000000000000000000'
  const tokens: Versioned[] = [{
    height: 12,
    value: {
      minter: ADMIN,
      contractAddress: tokenAddress,
      class: entityDid(1),
      name: 'CARBON',
      description: 'Development carbon credits',
      image: 'https://example.org/carbon.png',
      type: 'ixo1155',
      cap: '0',
      supply: '1500',
      paused: false,
      stopped: false,
      retired: [{ id: 'dev-retire-1', reason: 'offset', jurisdiction: 'MW', amount: '10', owner: agentAddress(3) }],
      cancelled: [],
      transferred: []
    }
  }]
  const tokenMetadata: Record<string, Init> = {
    [hex(1)]: {
      name: 'CARBON',
      description: 'Development carbon credits',
      decimals: '0',
      image: 'https://example.org/carbon.png',
      index: hex(1),
      properties: {
        class: entityDid(1),
        collection: entityDid(3),
        cap: '0',
        linkedResources: [
          {
            uri: 'ipfs://bafydevcredential',
            encrypted: false,
            proof: 'bafydevcredential',
            type: 'application/json',
            id: `${entityDid(3)}#credential`
          }
        ]
      }
    }
  }

  const params = {
    entity: {
      nftContractAddress: 'ixo1dev0nftcontract000000000000000000000000000000000000000000',
      nftContractMinter: ADMIN,
      createSequence: BigInt(entities.length)
    },
    claims: {
      collectionSequence: 4n,
      ixoAccount: ADMIN,
      networkFeePercentage: '100000000000000000',
      nodeFeePercentage: '50000000000000000',
      intentSequence: 2n
    },
    token: { ixo1155ContractCode: 1n }
  }
  return {
    entities,
    iidDocuments,
    collections,
    claims,
    disputes,
    intents,
    memberBudgets,
    deposits,
    tokens,
    tokenMetadata,
    params
  }
}

export type SampleData = ReturnType<typeof buildSampleData>
