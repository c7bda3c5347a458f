import { delegate, invoke } from '@ucanto/core'
import type { Delegation, DID, Principal, Signer } from '@ucanto/interface'
import { ed25519 } from '@ucanto/principal'
import { decodeBase64Car, encodeBase64Car } from './base64-car.ts'

// No Node built-ins here: `@impact/ucan/mint` also runs in browsers (the example chat page mints with it).

export type OracleSigner = ed25519.EdSigner

export const generateSigner = async (): Promise<OracleSigner> => await ed25519.Signer.generate()

/** The form `formatSigner` writes. */
export const parseSigner = (key: string): OracleSigner => ed25519.Signer.parse(key)

export const formatSigner = (signer: OracleSigner): string => ed25519.Signer.format(signer)

const nowSeconds = () => Math.floor(Date.now() / 1000)
const principal = (audience: string | Principal): Principal =>
  typeof audience === 'string' ? { did: () => audience as DID } : audience

export interface MintOptions {
  issuer: Signer
  audience: string | Principal
  /** Unix seconds; `Infinity` never expires (refused by verifiers). */
  expiration?: number
  /** Default 300. */
  lifetimeSeconds?: number
  notBefore?: number
  proofs?: Array<string | Delegation>
}

async function proofsOf (proofs: Array<string | Delegation> = []): Promise<Delegation[]> {
  return await Promise.all(proofs.map(async (p) => typeof p === 'string' ? await decodeBase64Car(p) : p))
}

export async function mintInvocation (
  options: MintOptions & { capability?: { can: string, with: string, nb?: Record<string, unknown> } }
): Promise<string> {
  const capability = options.capability ?? { can: '*', with: 'ixo:oracle' }
  const invocation = await invoke({
    issuer: options.issuer,
    audience: principal(options.audience),
    capability: capability as { can: `${string}/${string}`, with: `${string}:${string}`, nb?: {} },
    expiration: options.expiration ?? nowSeconds() + (options.lifetimeSeconds ?? 300),
    ...(options.notBefore !== undefined ? { notBefore: options.notBefore } : {}),
    nonce: globalThis.crypto.randomUUID(),
    proofs: await proofsOf(options.proofs)
  }).delegate()
  return await encodeBase64Car(invocation)
}

/** A fresh nonce per mint, as revocation goes by CID. */
export async function mintDelegation (
  options: MintOptions & { capabilities: Array<{ can: string, with: string }> }
): Promise<string> {
  const delegation = await delegate({
    issuer: options.issuer,
    audience: principal(options.audience),
    capabilities: options.capabilities as [{ can: `${string}/${string}`, with: `${string}:${string}` }],
    expiration: options.expiration ?? nowSeconds() + (options.lifetimeSeconds ?? 7 * 24 * 3600),
    ...(options.notBefore !== undefined ? { notBefore: options.notBefore } : {}),
    nonce: globalThis.crypto.randomUUID(),
    proofs: await proofsOf(options.proofs)
  })
  return await encodeBase64Car(delegation)
}

export const REVOKE_ABILITY = 'ucan/revoke'

/** Embeds the delegation as proof so the service can check who may revoke it. */
export async function mintRevocation (options: {
  issuer: Signer
  audience: string | Principal
  delegation: string | Delegation
  lifetimeSeconds?: number
}): Promise<string> {
  const [revoked] = await proofsOf([options.delegation]) as [Delegation]
  return await mintInvocation({
    issuer: options.issuer,
    audience: options.audience,
    capability: { can: REVOKE_ABILITY, with: options.issuer.did(), nb: { ucan: revoked.cid } },
    lifetimeSeconds: options.lifetimeSeconds ?? 300,
    proofs: [revoked]
  })
}

export { decodeBase64Car, encodeBase64Car } from './base64-car.ts'
