import type { Domain, DomainPage, DomainVerification, PlatformClientError } from '@impact/platform-client'
import { ToolFailure } from '../../services/agent/tools.ts'

/** Drops null, undefined and empty lists, so the model reads what is there. */
function compact (value: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) =>
    v !== null && v !== undefined && !(Array.isArray(v) && v.length === 0)))
}

const nameOf = (domain: Domain) => {
  const name = (domain.metadata as { name?: unknown }).name
  return typeof name === 'string' ? name : undefined
}

/** One domain as the model sees it: where it stands, who controls it, its links; `yours` for the user's own. */
export function domainResult (domain: Domain, user: string) {
  return compact({
    did: domain.did,
    type: domain.type,
    name: nameOf(domain),
    status: domain.status,
    verified: domain.verified,
    usable: domain.usable,
    yours: domain.controllers.includes(user),
    controllers: domain.controllers,
    protocol: domain.class,
    links: domain.links !== undefined && Object.keys(domain.links).length > 0 ? domain.links : undefined,
    alsoKnownAs: domain.alsoKnownAs,
    services: domain.services?.map((s) => ({ id: s.id, type: s.type, endpoint: s.serviceEndpoint })),
    verification: domain.verification,
    validFrom: domain.validFrom,
    validUntil: domain.validUntil,
    metadata: domain.metadata,
    createdBy: compact({ account: domain.createdBy.account, service: domain.createdBy.service }),
    createdAt: domain.createdAt
  })
}

export function pageResult (page: DomainPage) {
  return {
    items: page.items.map((d) => compact({
      did: d.did, type: d.type, name: nameOf(d), status: d.status, verified: d.verified, usable: d.usable
    })),
    nextCursor: page.nextCursor
  }
}

export function verificationResult (verification: DomainVerification) {
  const { proposal } = verification
  return {
    did: verification.did,
    status: verification.status,
    verified: verification.verified,
    usable: verification.usable,
    proposal: proposal === null
      ? null
      : {
          ...compact({
            id: proposal.id,
            status: proposal.status,
            quorum: proposal.quorum,
            threshold: proposal.threshold,
            tally: proposal.tally,
            deadline: proposal.deadline,
            closedAt: proposal.closedAt,
            outcome: proposal.outcomeReason
          }),
          votes: proposal.votes.map((v) => ({ account: v.account, vote: v.vote }))
        }
  }
}

/** What the model is told when the user has to authorise the oracle (again) before the call can be made. */
export function authorisationFailure (error: PlatformClientError, oracleDid: string): ToolFailure {
  const ability = error.ability ?? 'domain/*'
  const why = error.code === 'DOMAIN_UCAN_REVOKED'
    ? 'the user revoked the delegation this oracle held'
    : error.code === 'DOMAIN_UCAN_NOT_GRANTED'
      ? `domain-api refused: ${error.message}`
      : error.message
  return new ToolFailure(why, {
    error: 'authorisation_required',
    ability,
    reason: error.reason ?? error.code,
    message: `The user must authorise this oracle (${oracleDid}) for ${ability} before it can do this for them: ` +
      `${why}. Ask them to authorise it in their app (a delegation granting ${ability} on their DID, stored ` +
      'with POST /delegation), then try again. Nothing was changed.'
  })
}

/** Any other refusal or outage, with the service's code and, for a bad request, the fields at fault. */
export function serviceFailure (error: PlatformClientError): ToolFailure {
  const service = error.service ?? 'the service'
  const retry = error.code === 'PLATFORM_UNAVAILABLE' || error.code === 'PLATFORM_TIMEOUT' || error.statusCode >= 500
  return new ToolFailure(error.message, compact({
    error: error.code,
    status: error.statusCode,
    service,
    message: error.message,
    details: Array.isArray(error.details) ? error.details.slice(0, 5) : undefined,
    hint: retry ? `${service} could not answer now; try again later` : undefined
  }))
}
