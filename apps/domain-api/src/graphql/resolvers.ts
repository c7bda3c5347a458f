import type { FastifyReply } from 'fastify'
import type { IResolvers } from 'mercurius'
import { invalid } from '../errors.ts'
import type { Domain, DomainStatus, ProposalKind, ProposalStatus } from '@impact/schemas'
import { callerOf } from '../plugins/auth.ts'
import { domainPosition, type DomainService } from '../services/domains.ts'
import { proposalPosition, type GovernanceService } from '../services/governance.ts'
import { checkProposalQuery } from '../services/proposal-query.ts'
import { connection, DEFAULT_PAGE } from './connection.ts'
import type { LinkNode } from './loaders.ts'

/**
 * Root fields go through the same services as REST (settling what is due, deriving status,
 * `verified` and `usable` in one place); nested fields are mercurius loaders (loaders.ts).
 */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

interface DomainFilter {
  type?: string | null
  protocol?: string | null
  status?: DomainStatus | null
  controller?: string | null
  externalId?: string | null
  externalIdPrefix?: string | null
  organisation?: string | null
  project?: string | null
  usable?: boolean | null
  updatedSince?: string | null
}
interface DomainsArgs {
  filter?: DomainFilter | null
  first?: number | null
  after?: string | null
  sort?: 'createdAt' | 'updatedAt' | null
  order?: 'desc' | 'asc' | null
}

interface ProposalsArgs {
  status?: ProposalStatus | null
  kind?: ProposalKind | null
  voter?: string | null
  voted?: boolean | null
  first?: number | null
  after?: string | null
}

/** Mercurius puts the reply in the context; the request carries the caller the route authenticated. */
interface Context { reply: FastifyReply }

const given = <T>(value: T | null | undefined): T | undefined => value ?? undefined
/** The arguments a query gave (GraphQL nulls count as not given), as optional fields. */
const defined = <T extends Record<string, unknown>>(values: T) =>
  Object.fromEntries(Object.entries(values).filter(([, v]) => v !== null && v !== undefined)) as
    { [K in keyof T]?: Exclude<T[K], null> }

/** What a domain refers to; the registry records its protocol (class) today. */
export const linksOf = (domain: Domain): LinkNode[] => [
  { relationship: 'protocol', did: domain.class },
  ...(domain.links?.parent !== undefined ? [{ relationship: 'parent', did: domain.links.parent }] : []),
  ...(domain.links?.organisation !== undefined
    ? [{ relationship: 'organisation', did: domain.links.organisation }]
    : [])
]

export function createResolvers (
  { domains, governance }: { domains: DomainService, governance: GovernanceService }
): IResolvers {
  return {
    Query: {
      domain: async (_root: unknown, { did }: { did: string }, context: Context) =>
        await domains.get(callerOf(context.reply.request), did),
      domains: async (_root: unknown, { filter, first, after, sort, order }: DomainsArgs, context: Context) => {
        const sorting = { sort: sort ?? 'createdAt', order: order ?? 'desc' } as const
        const page = await domains.list(callerOf(context.reply.request), {
          ...sorting,
          limit: first ?? DEFAULT_PAGE,
          cursor: given(after),
          type: given(filter?.type),
          protocol: given(filter?.protocol),
          status: given(filter?.status),
          controller: given(filter?.controller),
          externalId: given(filter?.externalId),
          externalIdPrefix: given(filter?.externalIdPrefix),
          organisation: given(filter?.organisation),
          project: given(filter?.project),
          usable: given(filter?.usable),
          updatedSince: given(filter?.updatedSince)
        })
        return connection(page, domainPosition(sorting))
      },
      verificationProposal: async (_root: unknown, { id }: { id: string }) => {
        // Proposal ids are UUIDs; anything else cannot exist (and PostgreSQL would refuse to compare it).
        if (!UUID.test(id)) throw invalid('id must be a UUID', [{ field: '/id', message: 'must be a UUID' }])
        return await governance.get(id)
      },
      verificationProposals: async (_root: unknown, args: ProposalsArgs, context: Context) => {
        const query = checkProposalQuery({
          limit: args.first ?? DEFAULT_PAGE,
          ...defined({ cursor: args.after, status: args.status, kind: args.kind, voter: args.voter, voted: args.voted })
        })
        const page = await governance.list(query, callerOf(context.reply.request))
        return connection(page, proposalPosition)
      }
    },
    Domain: {
      links: (domain: Domain) => linksOf(domain)
    }
  }
}
