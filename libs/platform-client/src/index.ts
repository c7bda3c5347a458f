export {
  createPlatformClient,
  type PlatformClient,
  type PlatformClientOptions,
  type CallOptions,
  type ChainQueryOptions,
  type DomainSearch,
  type DomainVerification,
  type GraphqlError,
  type GraphqlResult,
  type Revocation
} from './client.ts'
export type { Actor } from './actor.ts'
export {
  PlatformClientError,
  isPlatformClientError,
  type AuthorisationReason,
  type ClientErrorCode,
  type PlatformService
} from './errors.ts'
export type {
  BatchCreateResult, BatchItemResult, CreateDomainBody, Domain, DomainEvent, DomainEventPage, DomainPage, Proposal
} from '@impact/schemas'
