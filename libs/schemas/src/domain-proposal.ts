import { Type, type Static } from '@sinclair/typebox'
import { IsoTimestampSchema, Nullable } from './common.ts'
import { CallerRefSchema, EntityDidSchema, NullableTimestampSchema, UuidSchema } from './domain-common.ts'

/** Verification proposals of the domain registry (apps/domain-api): the vote that verifies a domain. */

export const PROPOSAL_STATUSES = ['open', 'passed', 'rejected', 'cancelled'] as const
export type ProposalStatus = typeof PROPOSAL_STATUSES[number]
export const VOTES = ['yes', 'no', 'abstain'] as const
export const VoteChoiceSchema = Type.Union(VOTES.map((v) => Type.Literal(v)))
export type VoteChoice = Static<typeof VoteChoiceSchema>

export const CreateProposalBodySchema = Type.Object(
  {
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
      Type.String({ minLength: 1, maxLength: 2000, description: 'Why the domain should be verified' })
    )
  },
  { additionalProperties: false }
)
export type CreateProposalBody = Static<typeof CreateProposalBodySchema>

export const VoteBodySchema = Type.Object({ vote: VoteChoiceSchema }, { additionalProperties: false })

export const VoteSchema = Type.Object({
  ...CallerRefSchema.properties,
  vote: VoteChoiceSchema,
  castAt: IsoTimestampSchema
})
export type Vote = Static<typeof VoteSchema>

export const ProposalSchema = Type.Object({
  id: UuidSchema,
  domainDid: EntityDidSchema,
  status: Type.Union(PROPOSAL_STATUSES.map((s) => Type.Literal(s))),
  evidence: Type.String(),
  evidenceHash: Nullable(Type.String()),
  note: Nullable(Type.String()),
  proposedBy: CallerRefSchema,
  quorum: Type.Integer({ description: 'Votes needed (yes, no and abstain all count)' }),
  threshold: Type.Number({ description: 'Fraction of yes among yes+no needed to pass' }),
  tally: Type.Object({ yes: Type.Integer(), no: Type.Integer(), abstain: Type.Integer(), total: Type.Integer() }),
  deadline: IsoTimestampSchema,
  createdAt: IsoTimestampSchema,
  closedAt: NullableTimestampSchema,
  outcomeReason: Nullable(Type.String()),
  votes: Type.Array(VoteSchema)
})
export type Proposal = Static<typeof ProposalSchema>
