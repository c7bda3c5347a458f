/**
 * The GraphQL schema (SDL) of the registry's read side, served at `GET /graphql/schema`. Field
 * values are the REST records' (same status, `verified`, `usable`), so both interfaces agree.
 */
export const SCHEMA = /* GraphQL */ `
"""An RFC 3339 timestamp in UTC, e.g. 2026-11-27T09:00:00.000Z"""
scalar DateTime

"""Any JSON value (domain metadata, history details)"""
scalar JSON

type Query {
  """One domain by DID; null with a DOMAIN_NOT_FOUND error when the registry does not hold it"""
  domain(did: ID!): Domain
  """
  Domains, newest first unless sort/order say otherwise. first: 1 to 100 (default 20); after: a cursor from a
  previous page of the same order
  """
  domains(
    filter: DomainFilter, first: Int = 20, after: String, sort: DomainSort = createdAt, order: SortOrder = desc
  ): DomainConnection!
  """One verification proposal by id, with its tally and votes"""
  verificationProposal(id: ID!): VerificationProposal
  """
  Verification proposals, newest first, as GET /v1/verification-proposals lists them. voter: me (the calling
  account) or an account DID, only the proposals it may vote on or veto; voted (only with voter): whether it has a
  current vote. first: 1 to 100 (default 20); after: a cursor from a previous page (REST nextCursor fits too)
  """
  verificationProposals(
    status: ProposalStatus, kind: ProposalKind, voter: String, voted: Boolean, first: Int = 20, after: String
  ): VerificationProposalConnection!
}

input DomainFilter {
  """Entity type, any accepted spelling (Project, dao, asset/device…)"""
  type: String
  """Protocol (class) DID"""
  protocol: String
  status: DomainStatus
  """A controller DID"""
  controller: String
  """The identifier from outside the registry (a serial number) given at registration"""
  externalId: String
  """Only domains whose externalId starts with this (case-sensitive)"""
  externalIdPrefix: String
  """Only domains of this organisation (links.organisation, or inherited from the parent)"""
  organisation: String
  """Only domains of this project (the parent, or inherited from it)"""
  project: String
  """Only domains that are (true) or are not (false) usable now"""
  usable: Boolean
  """Only domains whose updatedAt is at or after this time"""
  updatedSince: DateTime
}

enum DomainSort {
  createdAt
  updatedAt
}

enum SortOrder {
  desc
  asc
}

"""
draft → verification_submitted → verified | rejected; changed: reviewed content changed after verification (not
usable until a new verification passes); revoked: verification revoked; expired once validUntil passes; deactivated
"""
enum DomainStatus {
  draft
  verification_submitted
  verified
  changed
  rejected
  revoked
  expired
  deactivated
}

"""
open; passed (its change applied); rejected; vetoed (a vetoer vetoed it); cancelled (domain expired or deactivated);
superseded (the reviewed content changed while it was open)
"""
enum ProposalStatus {
  open
  passed
  rejected
  vetoed
  cancelled
  superseded
}

"""
verify: verify the domain; revoke: revoke its verification; validity: move the validUntil of a verified domain;
collection: verify many domains of a project in one vote, each with its own snapshot
"""
enum ProposalKind {
  verify
  revoke
  validity
  collection
}

"""abstain counts toward the quorum only; veto (vetoers only) rejects at once"""
enum VoteChoice {
  yes
  no
  abstain
  veto
}

"""A digital twin of a real-world entity, with its own DID"""
type Domain {
  did: ID!
  """On-chain entity type (lower case), e.g. project, dao, asset/device, protocol"""
  type: String!
  """DID of the protocol that defines the entity class"""
  class: String!
  """Same value as class"""
  protocol: String!
  controllers: [String!]!
  """Its object under private only for the domain's organisation, controllers, registrant, admins and reviewers"""
  metadata: JSON!
  validFrom: DateTime
  validUntil: DateTime
  status: DomainStatus!
  """
  A passed verification covers the current content (stays true after expiry, like the chain flag entity_verified);
  false once the reviewed content changes, the verification is revoked or the domain is renewed
  """
  verified: Boolean!
  """May take part in platform activities now: status verified, within its validity period"""
  usable: Boolean!
  """sha256:<hex> of the canonical JSON of the reviewed content (what a verification approves)"""
  contentHash: String
  """The content hash the verification in force approved; differs from contentHash once changed"""
  verifiedHash: String
  """The identifier from outside the registry (a serial number) given at registration, or null"""
  externalId: String
  """The organisation the domain belongs to (links.organisation, or inherited from the parent), or null"""
  organisation: String
  """The project the domain belongs to (the parent when a project, or the parent's project), or null"""
  project: String
  """Entities this domain refers to (its protocol), with the linked domain when the registry holds it"""
  links: [DomainLink!]!
  """The verification proposal under vote, with its tally; null when none is open"""
  openProposal: VerificationProposal
  """The most recent verification proposal, whatever its outcome"""
  latestProposal: VerificationProposal
  """Every transition, oldest first. first: 1 to 100 (default 20)"""
  history(first: Int = 20, after: String): DomainEventConnection!
  createdBy: CallerRef!
  createdAt: DateTime!
  updatedAt: DateTime!
  verifiedAt: DateTime
  deactivatedAt: DateTime
}

type DomainLink {
  """How the domain relates to the linked entity: protocol, parent or organisation"""
  relationship: String!
  did: String!
  """The linked domain, when this registry holds it"""
  domain: Domain
}

type CallerRef {
  """The API key used; null for a UCAN caller"""
  keyId: String
  account: String!
  """The service that invoked for the account (UCAN), else null"""
  service: String
}

type VerificationProposal {
  id: ID!
  domainDid: ID!
  domain: Domain
  kind: ProposalKind!
  status: ProposalStatus!
  """validity proposals: the validUntil the domain gets if it passes"""
  validUntil: DateTime
  """Content hash of the domain when it opened: what the vote is about (null before snapshots were recorded)"""
  snapshotHash: String
  """collection: the domains it covered when it opened; else null"""
  memberCount: Int
  evidence: String!
  evidenceHash: String
  note: String
  proposedBy: CallerRef!
  """Votes needed (yes, no and abstain all count), fixed when it opened"""
  quorum: Int!
  """What the quorum came from: a count (3) or a share of the electorate (40%)"""
  quorumRule: String!
  """Fraction of yes among yes+no needed to pass"""
  threshold: Float!
  """Who may vote, fixed when it opened"""
  electorate: Electorate!
  tally: Tally!
  deadline: DateTime!
  createdAt: DateTime!
  closedAt: DateTime
  outcomeReason: String
  """Every ballot in casting order; a changed vote is kept with its supersededAt"""
  votes: [Vote!]!
}

type Electorate {
  """voter-role (holders of the voter role when it opened), council (named by the proposer) or legacy"""
  source: String!
  """Accounts that may vote yes, no or abstain"""
  size: Int!
  """Accounts that may veto"""
  vetoers: Int!
}

type Tally {
  yes: Int!
  no: Int!
  abstain: Int!
  veto: Int!
  """Accounts whose vote counts (each once, its latest vote)"""
  total: Int!
}

type Vote {
  """The API key used; null for a UCAN caller"""
  keyId: String
  account: String!
  service: String
  vote: VoteChoice!
  rationale: String
  castAt: DateTime!
  """When the account changed this vote; null for the ballot that counts"""
  supersededAt: DateTime
}

type DomainEvent {
  """Increasing sequence number of the entry"""
  id: ID!
  """created | updated | changed | renewed | verification_proposed | verified | rejected | revoked… (REST docs)"""
  event: String!
  fromStatus: DomainStatus
  toStatus: DomainStatus!
  actor: Actor!
  proposalId: ID
  reason: String
  details: JSON
  at: DateTime!
}

type Actor {
  """api-key: a caller; governance: a proposal outcome; system: time (expiry, end of a voting period)"""
  kind: String!
  keyId: String
  account: String
}

"""Forward-only pages (Relay connection); hasPreviousPage is always false"""
type PageInfo {
  hasNextPage: Boolean!
  hasPreviousPage: Boolean!
  startCursor: String
  endCursor: String
}

type DomainConnection {
  edges: [DomainEdge!]!
  pageInfo: PageInfo!
}

type DomainEdge {
  cursor: String!
  node: Domain!
}

type VerificationProposalConnection {
  edges: [VerificationProposalEdge!]!
  pageInfo: PageInfo!
}

type VerificationProposalEdge {
  cursor: String!
  node: VerificationProposal!
}

type DomainEventConnection {
  edges: [DomainEventEdge!]!
  pageInfo: PageInfo!
}

type DomainEventEdge {
  cursor: String!
  node: DomainEvent!
}
`
