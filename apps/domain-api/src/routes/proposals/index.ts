import type { AuditTrail, FastifyPluginAsyncTypebox } from '@impact/service-kit'
import { authorize, callerOf } from '../../plugins/auth.ts'
import { AuthHeadersSchema, errorResponses, SECURITY } from '../../schemas/security.ts'
import {
  CreateProposalBodySchema, CursorPageQuerySchema, ListProposalsQuerySchema, ProposalMemberPageSchema,
  ProposalPageSchema, ProposalSchema, VoteBodySchema
} from '@impact/schemas'
import { DidParamsSchema, ProposalParamsSchema } from '../../schemas/params.ts'
import type { ApiKeyService } from '../../services/api-keys.ts'
import type { GovernanceService } from '../../services/governance.ts'
import { checkProposalQuery } from '../../services/proposal-query.ts'

export interface ProposalRoutesOptions {
  apiKeys: ApiKeyService
  governance: GovernanceService
  audit: Pick<AuditTrail, 'record'>
}

const LISTING = 'Any API key, or UCAN domain/read. Newest first, cursor-paged (limit 1–100, cursor from ' +
  'nextCursor); items carry the tally but not the ballots (GET /v1/verification-proposals/:id has them). ' +
  '`voter=me` keeps the proposals the calling account may vote on or veto (its electorate, fixed when each ' +
  'opened); add `voted=false` for those it has not voted on yet, `voted=true` for those it has; `kind` keeps ' +
  'one kind (verify, revoke, validity, collection). ' +
  'Closings that are due are settled first.'

export const proposalRoutes: FastifyPluginAsyncTypebox<ProposalRoutesOptions> = async (app, options) => {
  const { apiKeys, governance } = options
  const tags = ['verification']
  const reader = authorize(apiKeys)

  app.post('/v1/domains/:did/verification-proposals', {
    onRequest: authorize(apiKeys, ['compliance'], { ability: 'verification/propose' }),
    schema: {
      tags,
      security: SECURITY,
      headers: AuthHeadersSchema,
      summary: 'Propose to verify a domain, revoke its verification, or change its validity',
      description: 'Role compliance (of the key, or of the UCAN caller\'s account; ability ' +
        'verification/propose). `kind` verify (default) opens on a draft, rejected, changed or revoked domain; ' +
        'revoke and validity (with the new `validUntil`) on a verified one, else 409 DOMAIN_NOT_VERIFIED. One ' +
        'open proposal per domain (409 DOMAIN_STATE_CONFLICT). Fixed now: the snapshot (`snapshotHash`, the ' +
        'domain\'s contentHash: a change to the reviewed content while open supersedes the proposal), the ' +
        'electorate (the accounts holding the voter role, or the named `council`, never the domain\'s controllers ' +
        'nor the proposer), the vetoers (holders of the vetoer role), the quorum (VERIFICATION_QUORUM, a count or ' +
        'a share of the electorate), the threshold and the deadline. 409 DOMAIN_ELECTORATE_TOO_SMALL when the ' +
        'electorate could never reach the quorum; 422 DOMAIN_COUNCIL_INVALID for a council member without the ' +
        'voter role, or one who controls the domain or proposes it.',
      params: DidParamsSchema,
      body: CreateProposalBodySchema,
      response: { 201: ProposalSchema, ...errorResponses(400, 401, 403, 404, 409, 422) }
    }
  }, async (request, reply) => {
    const proposal = await governance.propose(callerOf(request), request.params.did, request.body)
    return await reply.code(201).header('location', `/v1/verification-proposals/${proposal.id}`).send(proposal)
  })

  app.get('/v1/verification-proposals', {
    onRequest: reader,
    schema: {
      tags,
      security: SECURITY,
      headers: AuthHeadersSchema,
      summary: 'List verification proposals (e.g. those waiting for my vote)',
      description: `${LISTING} Example: \`?status=open&voter=me&voted=false\` is the caller's to-do list.`,
      querystring: ListProposalsQuerySchema,
      response: { 200: ProposalPageSchema, ...errorResponses(400, 401) }
    }
  }, async (request) => {
    return await governance.list(checkProposalQuery(request.query), callerOf(request))
  })

  app.get('/v1/domains/:did/verification-proposals', {
    onRequest: reader,
    schema: {
      tags,
      security: SECURITY,
      headers: AuthHeadersSchema,
      summary: 'List the verification proposals of one domain',
      description: `${LISTING} 404 when the registry does not hold the domain.`,
      params: DidParamsSchema,
      querystring: ListProposalsQuerySchema,
      response: { 200: ProposalPageSchema, ...errorResponses(400, 401, 404) }
    }
  }, async (request) => {
    const query = checkProposalQuery(request.query)
    return await governance.list({ ...query, domainDid: request.params.did }, callerOf(request))
  })

  app.get('/v1/verification-proposals/:id', {
    onRequest: reader,
    schema: {
      tags,
      security: SECURITY,
      headers: AuthHeadersSchema,
      summary: 'Read a verification proposal with its snapshot, tally, electorate and ballots',
      description: 'Any API key, or UCAN domain/read. `snapshot` is the reviewed content when it opened and its ' +
        'hash; `eligible` lists who may vote and veto; `votes` every ballot in casting order, a changed vote kept ' +
        'with its `supersededAt`.',
      params: ProposalParamsSchema,
      response: { 200: ProposalSchema, ...errorResponses(400, 401, 404) }
    }
  }, async (request) => await governance.get(request.params.id))

  app.get('/v1/verification-proposals/:id/members', {
    onRequest: reader,
    schema: {
      tags,
      security: SECURITY,
      headers: AuthHeadersSchema,
      summary: 'The domains a proposal reviews, each with its snapshot hash',
      description: 'Any API key, or UCAN domain/read. In DID order, cursor-paged: a collection\'s members (one ' +
        'entry for a single-domain proposal), `hash` the member\'s content hash when it opened (what a pass ' +
        'verifies), `withdrawnAt` / `withdrawnReason` for a member that left it (its reviewed content changed, it ' +
        'expired or was deactivated).',
      params: ProposalParamsSchema,
      querystring: CursorPageQuerySchema,
      response: { 200: ProposalMemberPageSchema, ...errorResponses(400, 401, 404) }
    }
  }, async (request) => await governance.members(request.params.id, request.query))

  app.post('/v1/verification-proposals/:id/votes', {
    onRequest: authorize(apiKeys, ['voter', 'vetoer'], { ability: 'verification/vote' }),
    schema: {
      tags,
      security: SECURITY,
      headers: AuthHeadersSchema,
      summary: 'Vote yes, no, abstain or veto, or change one\'s vote',
      description: 'Role voter, or vetoer for a veto (of the key, or of the UCAN caller\'s account; ability ' +
        'verification/vote). One vote per account, whichever of its keys casts it, with an optional rationale. ' +
        'Only members of the electorate fixed when the proposal opened may vote (403 DOMAIN_NOT_IN_ELECTORATE), ' +
        'never the domain\'s controllers nor the proposer (403 DOMAIN_VOTER_CONFLICT). Another choice while the ' +
        'proposal is open replaces the account\'s vote (the earlier ballot is kept, superseded); the same choice ' +
        'again is 409 DOMAIN_ALREADY_VOTED. The proposal closes as soon as the remaining electorate can no ' +
        'longer change its outcome (passed: its change applies; rejected), or at once on a veto.',
      params: ProposalParamsSchema,
      body: VoteBodySchema,
      response: { 201: ProposalSchema, ...errorResponses(400, 401, 403, 404, 409) }
    }
  }, async (request, reply) => {
    const caller = callerOf(request)
    const via = caller.keyId !== undefined ? 'api key' : 'ucan'
    const proposal = await governance.vote(caller, request.params.id, request.body)
    await options.audit.record({
      action: 'vote.cast',
      actor: caller.account,
      subject: request.params.id,
      details: { vote: request.body.vote, via, status: proposal.status }
    })
    return await reply.code(201).send(proposal)
  })
}
