import { Type, type Static } from '@sinclair/typebox'
import { IsoTimestampSchema, Nullable, PATHLESS_DID_PATTERN } from './common.ts'
import { accountField, CallerRefSchema, EntityDidSchema, NullableTimestampSchema, UuidSchema } from './domain-common.ts'
import { CursorPageQuerySchema, CursorPageSchema } from './pagination.ts'

/** Verification proposals of the domain registry (apps/domain-api): the vote that verifies a domain. */

export const PROPOSAL_STATUSES = ['open', 'passed', 'rejected', 'vetoed', 'cancelled', 'superseded'] as const
export type ProposalStatus = typeof PROPOSAL_STATUSES[number]
export const ProposalStatusSchema = Type.Union(PROPOSAL_STATUSES.map((s) => Type.Literal(s)), {
  description: 'open: taking votes · passed: its change applies (verified, revoked, new validUntil) · rejected: ' +
    'could no longer pass, or did not by its deadline · vetoed: a vetoer vetoed it · cancelled: the domain expired ' +
    'or was deactivated meanwhile · superseded: the reviewed content changed while it was open (its snapshot is stale)'
})

export const PROPOSAL_KINDS = ['verify', 'revoke', 'validity', 'collection'] as const
export type ProposalKind = typeof PROPOSAL_KINDS[number]
const KIND_DESCRIPTION = 'verify: verify a draft, rejected, changed or revoked domain · revoke: revoke the ' +
  'verification of a verified domain · validity: move the validUntil of a verified domain, keeping its ' +
  'verification · collection (on a project): verify up to 1,000 of the project\'s domains in one vote, each with its ' +
  'own snapshot'
const kindUnion = (options: { default?: ProposalKind } = {}) =>
  Type.Union(PROPOSAL_KINDS.map((k) => Type.Literal(k)), { description: KIND_DESCRIPTION, ...options })
export const ProposalKindSchema = kindUnion()
export const VOTES = ['yes', 'no', 'abstain', 'veto'] as const
export const VoteChoiceSchema = Type.Union(VOTES.map((v) => Type.Literal(v)), {
  description: 'yes, no, abstain (counts toward the quorum only), or veto (vetoers only: rejects at once)'
})
export type VoteChoice = Static<typeof VoteChoiceSchema>

export const MAX_COUNCIL = 500
export const MAX_RATIONALE = 1000

export const CreateProposalBodySchema = Type.Object(
  {
    kind: Type.Optional(kindUnion({ default: 'verify' })),
    validUntil: Type.Optional(Type.String({
      format: 'date-time',
      description: 'validity proposals only (and required there): the new validUntil, in the future and after ' +
        'validFrom',
      examples: ['2028-12-31T00:00:00.000Z']
    })),
    evidence: Type.String({
      format: 'uri',
      maxLength: 2048,
      description: 'Reference to the evidence package voters review (https://, ipfs://, a DID URL…)',
      examples: ['ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi']
    }),
    evidenceHash: Type.Optional(
      Type.String({
        pattern: '^[A-Za-z0-9:_-]{8,256}$',
        description: 'Digest of the package (e.g. sha256:<hex>), so voters can check what they review'
      })
    ),
    note: Type.Optional(
      Type.String({ minLength: 1, maxLength: 2000, description: 'Why the change should be made' })
    ),
    council: Type.Optional(Type.Array(accountField('A council member'), {
      minItems: 1,
      maxItems: MAX_COUNCIL,
      uniqueItems: true,
      description: 'The accounts that vote on this proposal instead of every holder of the voter role. Each must ' +
        'hold the voter role now and be neither a controller of the domain nor the proposer.'
    }))
  },
  { additionalProperties: false }
)
export type CreateProposalBody = Static<typeof CreateProposalBodySchema>

export const VoteBodySchema = Type.Object({
  vote: VoteChoiceSchema,
  rationale: Type.Optional(Type.String({
    minLength: 1,
    maxLength: MAX_RATIONALE,
    description: 'Why the account votes so; kept with the ballot'
  }))
}, { additionalProperties: false })
export type VoteBody = Static<typeof VoteBodySchema>

export const VoteSchema = Type.Object({
  ...CallerRefSchema.properties,
  vote: VoteChoiceSchema,
  rationale: Nullable(Type.String()),
  castAt: IsoTimestampSchema,
  supersededAt: Nullable(Type.String({
    format: 'date-time',
    description: 'When the account changed this vote; null for the ballot that counts'
  }))
})
export type Vote = Static<typeof VoteSchema>

export const ELECTORATE_SOURCES = ['voter-role', 'council', 'legacy'] as const
export const ElectorateSchema = Type.Object({
  source: Type.Union(ELECTORATE_SOURCES.map((s) => Type.Literal(s)), {
    description: 'voter-role: the accounts holding the voter role when the proposal opened; council: named by ' +
      'the proposer; legacy: opened before electorates were recorded (the accounts that voted)'
  }),
  size: Type.Integer({ description: 'Accounts that may vote yes, no or abstain (the base of a percentage quorum)' }),
  vetoers: Type.Integer({ description: 'Accounts that may veto' })
})

export const TallySchema = Type.Object({
  yes: Type.Integer(),
  no: Type.Integer(),
  abstain: Type.Integer(),
  veto: Type.Integer(),
  total: Type.Integer({ description: 'Accounts whose vote counts (each account once, its latest vote)' })
})

const summaryProperties = {
  id: UuidSchema,
  domainDid: EntityDidSchema,
  kind: ProposalKindSchema,
  status: ProposalStatusSchema,
  validUntil: Nullable(Type.String({
    format: 'date-time',
    description: 'validity proposals: the validUntil the domain gets if it passes; null for other kinds'
  })),
  snapshotHash: Nullable(Type.String({
    description: 'Content hash (sha256:<hex>, see the domain\'s contentHash) of the domain when the proposal opened: ' +
      'what the vote is about; for a collection, the hash of its [did, hash] member list in DID order; null for ' +
      'proposals opened before snapshots were recorded'
  })),
  memberCount: Nullable(Type.Integer({
    description: 'collection: the domains it covered when it opened (members withdrawn since included); else null'
  })),
  evidence: Type.String(),
  evidenceHash: Nullable(Type.String()),
  note: Nullable(Type.String()),
  proposedBy: CallerRefSchema,
  quorum: Type.Integer({ description: 'Votes needed (yes, no and abstain all count), fixed when it opened' }),
  quorumRule: Type.String({ description: 'What the quorum came from: a count (3) or a share of the electorate (40%)' }),
  threshold: Type.Number({ description: 'Fraction of yes among yes+no needed to pass' }),
  electorate: ElectorateSchema,
  tally: TallySchema,
  deadline: IsoTimestampSchema,
  createdAt: IsoTimestampSchema,
  closedAt: NullableTimestampSchema,
  outcomeReason: Nullable(Type.String())
}

/** A proposal as listings show it: no ballots, no member lists. */
export const ProposalSummarySchema = Type.Object(summaryProperties)
export type ProposalSummary = Static<typeof ProposalSummarySchema>

export const ProposalSnapshotSchema = Type.Object({
  hash: Type.String({ description: 'sha256:<hex> of the canonical JSON of content' }),
  content: Type.Object({}, {
    additionalProperties: true,
    description: 'The reviewed content as it was when the proposal opened (what the hash covers)'
  })
})

export const ProposalSchema = Type.Object({
  ...summaryProperties,
  snapshot: Nullable(ProposalSnapshotSchema),
  eligible: Type.Object({
    voters: Type.Array(Type.String(), { description: 'The electorate: accounts that may vote' }),
    vetoers: Type.Array(Type.String(), { description: 'Accounts that may veto' })
  }),
  votes: Type.Array(VoteSchema, { description: 'Every ballot in casting order, changed ones included' })
})
export type Proposal = Static<typeof ProposalSchema>

export const ListProposalsQuerySchema = Type.Object({
  ...CursorPageQuerySchema.properties,
  status: Type.Optional(ProposalStatusSchema),
  kind: Type.Optional(ProposalKindSchema),
  voter: Type.Optional(Type.String({
    pattern: `^me$|${PATHLESS_DID_PATTERN}`,
    maxLength: 512,
    description: '`me` (the calling account) or an account DID: only proposals it may vote on or veto'
  })),
  voted: Type.Optional(Type.Boolean({
    description: 'With voter: true, only those it has voted on; false, only those it has not voted on yet'
  }))
}, { additionalProperties: false })
export type ListProposalsQuery = Static<typeof ListProposalsQuerySchema>

export const ProposalPageSchema = CursorPageSchema(ProposalSummarySchema)

export const ProposalMemberSchema = Type.Object({
  did: EntityDidSchema,
  hash: Type.String({ description: 'The member\'s content hash when the proposal opened: what a pass verifies' }),
  withdrawnAt: Nullable(Type.String({
    format: 'date-time',
    description: 'When the member left the proposal (its reviewed content changed, it expired or was deactivated)'
  })),
  withdrawnReason: Nullable(Type.String())
})
export type ProposalMember = Static<typeof ProposalMemberSchema>
export const ProposalMemberPageSchema = CursorPageSchema(ProposalMemberSchema)
