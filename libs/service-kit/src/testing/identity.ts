import { formatSigner, generateSigner, mintDelegation, mintInvocation, type OracleSigner } from '@impact/ucan'

export interface TestIdentity {
  signer: OracleSigner
  did: string
  /** The signer as an app reads it from its private-key setting (e.g. `ORACLE_PRIVATE_KEY`). */
  key: string
}

/** A fresh Ed25519 identity, so no test boots an app on a key another test or a developer uses. */
export async function freshIdentity (): Promise<TestIdentity> {
  const signer = await generateSigner()
  return { signer, did: signer.did(), key: formatSigner(signer) }
}

export interface UcanCaller extends TestIdentity {
  /** An invocation addressed to the audience. */
  invocation: string
  /** A delegation of every `ixo:oracle` capability to the audience. */
  delegation: string
  /** The request headers of UCAN auth: the invocation as the bearer token, with its delegation. */
  headers: Record<string, string>
}

/** A caller with a fresh identity and the UCANs that authenticate it to `audience` (an app's DID). */
export async function ucanCaller (audience: string, lifetimeSeconds?: number): Promise<UcanCaller> {
  const identity = await freshIdentity()
  const lifetime = lifetimeSeconds !== undefined ? { lifetimeSeconds } : {}
  const invocation = await mintInvocation({ issuer: identity.signer, audience, ...lifetime })
  const capabilities = [{ can: '*', with: 'ixo:oracle' }]
  const delegation = await mintDelegation({ issuer: identity.signer, audience, capabilities, ...lifetime })
  return {
    ...identity,
    invocation,
    delegation,
    headers: { authorization: `Bearer ${invocation}`, 'x-auth-type': 'ucan', 'x-ucan-delegation': delegation }
  }
}
