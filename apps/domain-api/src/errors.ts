import { defineError } from '@impact/service-kit'

/** Coded errors of domain-api; every code starts with `DOMAIN_` and is part of the public contract. */

// 400: input that passed the schema but breaks a rule (carries `details: [{ field, message }]`)
export const DomainInvalidError = defineError('DOMAIN_INVALID_REQUEST', '%s', 400)
export const DomainInvalidCursorError = defineError(
  'DOMAIN_INVALID_CURSOR',
  'The cursor is malformed or belongs to another listing',
  400
)

// 400 from POST /graphql: a query that does not parse or validate, bad variables, or one over the limits
export const DomainGraphqlInvalidError = defineError('DOMAIN_GRAPHQL_INVALID', '%s', 400)
export const DomainGraphqlTooComplexError = defineError('DOMAIN_GRAPHQL_TOO_COMPLEX', '%s', 400)

// 401 / 403
export const DomainAuthMissingError = defineError(
  'DOMAIN_AUTH_MISSING',
  'Missing credentials: send Authorization: Bearer <API_KEY>, or a UCAN invocation with X-Auth-Type: ucan',
  401
)
export const DomainApiKeyInvalidError = defineError('DOMAIN_API_KEY_INVALID', 'Invalid API key', 401)
export const DomainApiKeyRevokedError = defineError('DOMAIN_API_KEY_REVOKED', 'This API key has been revoked', 401)
// A bad, expired or forged token, or one addressed elsewhere: the same text as the oracle's, the reason is logged.
export const DomainUcanInvalidError = defineError('DOMAIN_UCAN_INVALID_INVOCATION', 'Invalid UCAN invocation', 401)
export const DomainUcanRevokedError = defineError(
  'DOMAIN_UCAN_REVOKED',
  'This invocation, or a delegation it carries, has been revoked',
  401
)
export const DomainUcanReplayedError = defineError(
  'DOMAIN_UCAN_REPLAYED',
  'This invocation was used already: one made through a delegation is single-use, mint a new one per request',
  401
)
export const DomainForbiddenError = defineError(
  'DOMAIN_FORBIDDEN',
  'The caller lacks the role this operation needs (%s)',
  403
)
export const DomainUcanNotGrantedError = defineError(
  'DOMAIN_UCAN_NOT_GRANTED',
  'The invocation does not grant %s on its account (its capability must be that ability, with = the account ' +
    'DID, proven by a chain rooted at that DID)',
  403
)
export const DomainUcanNotAcceptedError = defineError(
  'DOMAIN_UCAN_NOT_ACCEPTED',
  'This operation takes an API key, not a UCAN invocation',
  403
)
export const DomainRevocationNotAllowedError = defineError(
  'DOMAIN_UCAN_REVOCATION_NOT_ALLOWED',
  'Only an issuer in the revoked UCAN\'s chain, or its audience, may revoke it',
  403
)
export const DomainNotControllerError = defineError(
  'DOMAIN_NOT_CONTROLLER',
  'Only a controller of %s (or an admin) may change it',
  403
)
export const DomainVoterConflictError = defineError(
  'DOMAIN_VOTER_CONFLICT',
  'Account %s %s domain %s, so it cannot vote on its verification',
  403
)
export const DomainNotInElectorateError = defineError('DOMAIN_NOT_IN_ELECTORATE', '%s', 403)

// 404
export const DomainNotFoundError = defineError('DOMAIN_NOT_FOUND', 'Domain %s not found', 404)
export const DomainProposalNotFoundError = defineError(
  'DOMAIN_PROPOSAL_NOT_FOUND',
  'Verification proposal %s not found',
  404
)
export const DomainApiKeyNotFoundError = defineError('DOMAIN_API_KEY_NOT_FOUND', 'API key %s not found', 404)
export const DomainWebhookNotFoundError = defineError('DOMAIN_WEBHOOK_NOT_FOUND', 'Webhook %s not found', 404)
export const DomainDeliveryNotFoundError = defineError(
  'DOMAIN_WEBHOOK_DELIVERY_NOT_FOUND',
  'Delivery %s of webhook %s not found',
  404
)

// 409: the request is valid but the current state forbids it
export const DomainStateConflictError = defineError('DOMAIN_STATE_CONFLICT', '%s', 409)
export const DomainProposalClosedError = defineError(
  'DOMAIN_PROPOSAL_CLOSED',
  'Verification proposal %s is %s and takes no more votes',
  409
)
export const DomainAlreadyVotedError = defineError(
  'DOMAIN_ALREADY_VOTED',
  'This account has already voted %s on proposal %s (to change its vote, send another choice)',
  409
)
export const DomainElectorateTooSmallError = defineError(
  'DOMAIN_ELECTORATE_TOO_SMALL',
  'The electorate (%s) cannot reach the quorum of %s: the proposal could never pass',
  409
)

export const DomainNotVerifiedError = defineError(
  'DOMAIN_NOT_VERIFIED',
  'Domain %s is %s: a %s proposal applies to a verified domain only',
  409
)

export const DomainExternalIdTakenError = defineError(
  'DOMAIN_EXTERNAL_ID_TAKEN',
  'A domain of %s is already registered under external id %s: %s',
  409
)
export const DomainBatchInProgressError = defineError(
  'DOMAIN_BATCH_IN_PROGRESS',
  'A batch with this Idempotency-Key is still being registered; retry in a few seconds for its results',
  409
)

export const DomainDeliveryInFlightError = defineError(
  'DOMAIN_WEBHOOK_DELIVERY_IN_FLIGHT',
  'Delivery %s is being sent right now; ask again once this attempt is logged',
  409
)

// 422: the request conflicts with other data
export const DomainIdempotencyMismatchError = defineError(
  'DOMAIN_IDEMPOTENCY_KEY_REUSED',
  'This Idempotency-Key was already used with a different request body',
  422
)
export const DomainCouncilInvalidError = defineError('DOMAIN_COUNCIL_INVALID', '%s', 422)
export const DomainClassNotProtocolError = defineError(
  'DOMAIN_CLASS_NOT_PROTOCOL',
  'The class %s is a registered %s domain, not a protocol',
  422
)
// The class and the typed links are checked on write; each error names the field in `details`.
export const DomainClassNotFoundError = defineError(
  'DOMAIN_CLASS_NOT_FOUND',
  'The class %s is not a domain of this registry (did:ixo:entity DIDs are this registry\'s own)',
  422
)
export const DomainClassNotUsableError = defineError(
  'DOMAIN_CLASS_NOT_USABLE',
  'The class %s is a protocol that is %s: only a verified, active protocol can be a class',
  422
)
export const DomainClassMethodNotAllowedError = defineError(
  'DOMAIN_CLASS_METHOD_NOT_ALLOWED',
  'The class %s is outside this registry and its DID method is not allowed here (allowed: %s)',
  422
)
export const DomainLinkNotFoundError = defineError(
  'DOMAIN_LINK_NOT_FOUND',
  'links.%s %s is not a domain of this registry',
  422
)
export const DomainLinkNotUsableError = defineError('DOMAIN_LINK_NOT_USABLE', 'links.%s %s is %s', 422)
export const DomainLinkTypeMismatchError = defineError('DOMAIN_LINK_TYPE_MISMATCH', '%s', 422)
export const DomainLinkMismatchError = defineError('DOMAIN_LINK_MISMATCH', '%s', 422)

// 429: over a rate limit (per client, failed authentications per client, per API key); Retry-After says when to retry
export const DomainRateLimitedError = defineError('DOMAIN_RATE_LIMITED', '%s; retry in %s seconds', 429)

/** A coded error naming the offending field in `details`, as validation errors do. */
export function onField<E extends Error> (error: E, field: string, message: string): E {
  return Object.assign(error, { details: [{ field, message }] })
}

/** A 400 with one entry per offending field, as schema validation failures have. */
export function invalid (message: string, details: Array<{ field: string, message: string }>) {
  return Object.assign(new DomainInvalidError(message), { details })
}

// Tenancy: callers of an organisation act within it (its domains, keys, accounts and webhooks)
export const DomainOrganisationForbiddenError = defineError('DOMAIN_ORGANISATION_FORBIDDEN', '%s', 403)
export const DomainOrganisationConflictError = defineError('DOMAIN_ORGANISATION_CONFLICT', '%s', 409)
export const DomainOrganisationInvalidError = defineError('DOMAIN_ORGANISATION_INVALID', '%s', 422)
