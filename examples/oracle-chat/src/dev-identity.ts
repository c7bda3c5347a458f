import { formatSigner, generateSigner, mintDelegation, mintInvocation, parseSigner } from '@impact/ucan/mint'
import type { CredentialRequest } from '@impact/oracle-react'

/**
 * DEVELOPMENT ONLY. The page makes up its own user: an Ed25519 key generated in this browser and
 * kept in localStorage, which signs the UCANs the oracle asks for. Nothing is shipped with the
 * page and the key never leaves the browser, but localStorage is readable by any script on the
 * origin, so a real application asks the user's wallet to sign instead (same two callbacks).
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
    // A delegation for an hour, an invocation for five minutes: the client re-mints shortly before each expires.
    // `domain/*` lets the oracle's platform tools act for this user at domain-api; the client stores the
    // delegation with the oracle (POST /delegation) when the oracle asks for authorisation.
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
