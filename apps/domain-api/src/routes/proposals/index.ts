import type { FastifyPluginAsyncTypebox } from '@impact/service-kit'
import { authorize, callerOf } from '../../plugins/auth.ts'
import { AuthHeadersSchema, errorResponses, SECURITY } from '../../schemas/security.ts'
import { CreateProposalBodySchema, ProposalSchema, VoteBodySchema } from '@impact/schemas'
import { DidParamsSchema, ProposalParamsSchema } from '../../schemas/params.ts'
import type { ApiKeyService } from '../../services/api-keys.ts'
import type { GovernanceService } from '../../services/governance.ts'

export interface ProposalRoutesOptions { apiKeys: ApiKeyService, governance: GovernanceService }

export const proposalRoutes: FastifyPluginAsyncTypebox<ProposalRoutesOptions> = async (app, options) => {
  const { apiKeys, governance } = options
  const tags = ['verification']

  app.post('/v1/domains/:did/verification-proposals', {
    onRequest: authorize(apiKeys, ['compliance'], { ability: 'verification/propose' }),
    schema: {
      tags,
      security: SECURITY,
      headers: AuthHeadersSchema,
      summary: 'Submit a domain for verification',
      description: 'Role compliance (of the key, or of the UCAN caller\'s account; ability ' +
        'verification/propose). Opens a proposal on a draft or rejected domain; voters then have the voting ' +
        'period to decide. Quorum, threshold and deadline are fixed when it opens.',
      params: DidParamsSchema,
      body: CreateProposalBodySchema,
      response: { 201: ProposalSchema, ...errorResponses(400, 401, 403, 404, 409) }
    }
  }, async (request, reply) => {
    const proposal = await governance.propose(callerOf(request), request.params.did, request.body)
    return await reply.code(201).header('location', `/v1/verification-proposals/${proposal.id}`).send(proposal)
  })

  app.get('/v1/verification-proposals/:id', {
    onRequest: authorize(apiKeys),
    schema: {
      tags,
      security: SECURITY,
      headers: AuthHeadersSchema,
      summary: 'Read a verification proposal with its tally and votes',
      description: 'Any API key, or UCAN domain/read.',
      params: ProposalParamsSchema,
      response: { 200: ProposalSchema, ...errorResponses(400, 401, 404) }
    }
  }, async (request) => await governance.get(request.params.id))

  app.post('/v1/verification-proposals/:id/votes', {
    onRequest: authorize(apiKeys, ['voter'], { ability: 'verification/vote' }),
    schema: {
      tags,
      security: SECURITY,
      headers: AuthHeadersSchema,
      summary: 'Vote yes, no or abstain',
      description: 'Role voter (of the key, or of the UCAN caller\'s account; ability verification/vote). ' +
        'One vote per account (a second is 409), while the proposal is open. The proposal passes, and the ' +
        'domain becomes verified, as soon as the quorum is reached with enough yes.',
      params: ProposalParamsSchema,
      body: VoteBodySchema,
      response: { 201: ProposalSchema, ...errorResponses(400, 401, 403, 404, 409) }
    }
  }, async (request, reply) => {
    return await reply.code(201).send(await governance.vote(callerOf(request), request.params.id, request.body.vote))
  })
}
