import type { FastifyReply } from 'fastify'
import type { Kysely } from 'kysely'
import type { MercuriusLoaders } from 'mercurius'
import { callerOf } from '../plugins/auth.ts'
import { findDomains } from '../db/domain.repository.ts'
import { listEventsOf } from '../db/event.repository.ts'
import { findProposalsWithDomain, listVotesOf } from '../db/proposal.repository.ts'
import type { DB } from '../db/types.ts'
import type { Domain, Proposal, ProposalSummary, Vote } from '@impact/schemas'
import type { Clock } from '../services/clock.ts'
import { eventPosition } from '../services/domains.ts'
import type { GovernanceService } from '../services/governance.ts'
import { isDue } from '../services/lifecycle.ts'
import { decodeSequence, toPage } from '../services/pagination.ts'
import { toDomain, toEvent, toProposalSummary, toVote } from '../services/records.ts'
import { createPrivacy } from '../services/tenancy.ts'
import { connection, DEFAULT_PAGE } from './connection.ts'

/**
 * Mercurius loaders: each field below is resolved for all the objects of one request at once,
 * so a page of domains with their proposals, votes, links and history costs a fixed number of
 * statements, not one per domain.
 */

/** A proposal as GraphQL nodes carry it: votes are loaded only when asked for. */
export type ProposalNode = ProposalSummary & Partial<Pick<Proposal, 'votes' | 'eligible'>>
export interface LinkNode { relationship: string, did: string }

interface Query<T, P = Record<string, unknown>> { obj: T, params: P }
interface PageParams { first?: number | null, after?: string | null }
interface Context { reply: FastifyReply }

const unique = <T>(values: Array<T | null | undefined>) =>
  [...new Set(values.filter((v): v is T => v !== null && v !== undefined))]

export function createLoaders (
  { db, clock, governance }: { db: Kysely<DB>, clock: Clock, governance: GovernanceService }
): MercuriusLoaders {
  const privacy = createPrivacy(db)

  /** Linked domains as the caller may see them (private metadata only where it reads the REST record's). */
  async function domainsByDid (dids: string[], context: { reply: FastifyReply }): Promise<Array<Domain | null>> {
    const rows = await findDomains(db, unique(dids))
    const now = clock()
    const shown = await privacy.visible(callerOf(context.reply.request), rows.map((row) => toDomain(row, now)))
    const byDid = new Map(shown.map((domain) => [domain.did, domain]))
    return dids.map((did) => byDid.get(did) ?? null)
  }

  async function proposalsById (ids: Array<string | null>): Promise<Array<ProposalNode | null>> {
    const rows = await findProposalsWithDomain(db, unique(ids))
    const now = clock()
    const byId = new Map<string, ProposalNode>()
    for (const row of rows) {
      if (isDue({ status: row.d_status, valid_until: row.d_valid_until }, row, now)) {
        // Its period ended or its domain expired and no sweep recorded it yet: settle it as REST reads do.
        byId.set(row.id, await governance.get(row.id))
      } else {
        byId.set(row.id, toProposalSummary(row))
      }
    }
    return ids.map((id) => (id === null ? null : byId.get(id) ?? null))
  }

  async function votesOf (queries: Array<Query<ProposalNode>>): Promise<Vote[][]> {
    const rows = await listVotesOf(db, unique(queries.filter((q) => q.obj.votes === undefined).map((q) => q.obj.id)))
    const byProposal = new Map<string, Vote[]>()
    for (const row of rows) {
      const list = byProposal.get(row.proposal_id) ?? []
      list.push(toVote(row))
      byProposal.set(row.proposal_id, list)
    }
    return queries.map((q) => q.obj.votes ?? byProposal.get(q.obj.id) ?? [])
  }

  /** Histories of several domains; one statement per distinct (first, after) asked for. */
  async function histories (queries: Array<Query<Domain, PageParams>>) {
    type Group = { first: number, after: string | undefined, queries: Array<Query<Domain, PageParams>> }
    const groups = new Map<string, Group>()
    for (const query of queries) {
      const first = query.params.first ?? DEFAULT_PAGE
      const after = query.params.after ?? undefined
      const key = JSON.stringify([first, after])
      const group = groups.get(key) ?? { first, after, queries: [] }
      group.queries.push(query)
      groups.set(key, group)
    }
    const results = new Map<Query<Domain, PageParams>, unknown>()
    for (const { first, after, queries: grouped } of groups.values()) {
      try {
        const rows = await listEventsOf(db, unique(grouped.map((q) => q.obj.did)), decodeSequence(after), first + 1)
        for (const query of grouped) {
          const own = rows.filter((row) => row.domain_did === query.obj.did)
          const page = toPage(own.map(toEvent), first, (entry) => entry, eventPosition)
          results.set(query, connection(page, eventPosition))
        }
      } catch (error) {
        // A bad cursor fails the fields that sent it, not the whole page (graphql-js throws returned errors).
        for (const query of grouped) results.set(query, error)
      }
    }
    return queries.map((query) => results.get(query))
  }

  return {
    Domain: {
      openProposal: async (queries: Array<Query<Domain>>) => {
        const ids = queries.map((q) => (q.obj.verification?.status === 'open' ? q.obj.verification.proposalId : null))
        // Settling may just have cancelled it (the domain expired during the vote).
        return (await proposalsById(ids)).map((p) => (p?.status === 'open' ? p : null))
      },
      latestProposal: async (queries: Array<Query<Domain>>) =>
        await proposalsById(queries.map((q) => q.obj.verification?.proposalId ?? null)),
      history: histories
    },
    DomainLink: {
      domain: async (queries: Array<Query<LinkNode>>, context: Context) =>
        await domainsByDid(queries.map((q) => q.obj.did), context)
    },
    VerificationProposal: {
      domain: async (queries: Array<Query<ProposalNode>>, context: Context) =>
        await domainsByDid(queries.map((q) => q.obj.domainDid), context),
      votes: votesOf
    }
  }
}
