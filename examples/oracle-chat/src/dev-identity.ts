import { formatSigner, generateSigner, mintDelegation, mintInvocation, parseSigner } from '@impact/ucan/mint'
import type { CredentialRequest } from '@impact/oracle-react'

/**
 * DEVELOPMENT ONLY: a key generated and kept in localStorage, readable by any script on the origin.
 * A real application asks the user's wallet to sign instead.
 */
const STORAGE_KEY = 'oracle-chat:development-key'

export interface DevIdentity {
  did: string
  createDelegation: (request: CredentialRequest) => Promise<string>
  createInvocation: (request: CredentialRequest) => Promise<string>
}

export async function loadDevIdentity (): Promise<DevIdentity> {
  const stored = localStorage.getItem(STORAGE_KEY)
  let signer = stored !== null ? tryParse(stored) : undefined
  if (signer === undefined) {
    signer = await generateSigner()
    localStorage.setItem(STORAGE_KEY, formatSigner(signer))
  }
  const issuer = signer
  return {
    did: issuer.did(),
    // The client re-mints shortly before each expires; `domain/*` lets the oracle's platform tools act for the user.
    createDelegation: async ({ oracleDid }) =>
      await mintDelegation({
        issuer,
        audience: oracleDid,
        capabilities: [{ can: '*', with: 'ixo:oracle' }, { can: 'domain/*', with: issuer.did() }],
        lifetimeSeconds: 3600
      }),
    createInvocation: async ({ oracleDid }) =>
      await mintInvocation({ issuer, audience: oracleDid, lifetimeSeconds: 300 })
  }
}

export function forgetDevIdentity (): void {
  localStorage.removeItem(STORAGE_KEY)
}

function tryParse (key: string) {
  try {
    return parseSigner(key)
  } catch {
    return undefined
  }
}
