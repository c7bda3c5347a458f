export {
  createUcanVerifier,
  type UcanVerifier,
  type UcanVerifierOptions,
  type InvocationIdentity,
  type DelegationGrant,
  type AccountInvocation,
  type RevocationGrant
} from './verifier.ts'
export { UcanError, type UcanFailureReason, type Verdict } from './errors.ts'
export { decodeBase64Car, encodeBase64Car, MAX_TOKEN_LENGTH } from './base64-car.ts'
export {
  createBlocksyncResolver,
  didKeysOf,
  ed25519DidKey,
  type DidKeyResolver,
  type BlocksyncResolverOptions
} from './resolvers.ts'
export {
  generateSigner,
  parseSigner,
  formatSigner,
  mintInvocation,
  mintDelegation,
  mintRevocation,
  REVOKE_ABILITY,
  type OracleSigner,
  type MintOptions
} from './mint.ts'
export { VerdictCache } from './verdict-cache.ts'
export { covers, ORACLE_AUTH_CAPABILITY, type Capability } from './capabilities.ts'
export { loadServiceIdentity, type ServiceIdentity, type ServiceIdentityOptions } from './identity.ts'
