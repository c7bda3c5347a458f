import { isPlatformClientError, type Domain, type PlatformClient } from '@impact/platform-client'
import { plainGsm7, shorten } from '../screen.ts'
import type { DomainView, Session } from '../session.ts'
import { actingAccount } from './account-access.ts'
import { end, refuse, type MachineDeps, type Step } from './types.ts'

/** Longest label of a domain on a screen (a serial, or the start of its name). */
export const MAX_LABEL = 24

/** `did:ixo:entity:3f9a0c…` cut to its start and end, as a person can compare it. */
export const shortDid = (did: string): string => (did.length > 28 ? `${did.slice(0, 21)}...${did.slice(-4)}` : did)

const day = (iso: string | null | undefined) => (typeof iso === 'string' ? iso.slice(0, 10) : undefined)

/** The date that goes with a status: verified on, vote closes on, validity ended on, deactivated on. */
function dateOf (domain: Domain): string | undefined {
  switch (domain.status) {
    case 'verified': return day(domain.verifiedAt)
    case 'verification_submitted': return day(domain.verification?.deadline)
    case 'expired': return day(domain.validUntil)
    case 'deactivated': return day(domain.deactivatedAt)
    default: return undefined
  }
}

/** A registry record as the menus keep it: the serial (or name, or short DID) as label, plain GSM-7. */
export function viewOf (domain: Domain): DomainView {
  const name = (domain.metadata as Record<string, unknown>).name
  const label = plainGsm7(domain.externalId ?? (typeof name === 'string' ? name : ''))
  const date = dateOf(domain)
  return {
    did: domain.did,
    label: label === '' ? shortDid(domain.did) : shorten(label, MAX_LABEL),
    status: domain.status,
    ...(date !== undefined ? { date } : {})
  }
}

/**
 * The registry client acting as the logged-in account, or the step that stops (logged out, locked, key
 * unusable). Never without a session that proved the account's PIN.
 */
export async function registryAs (
  s: Session,
  deps: MachineDeps
): Promise<{ registry: PlatformClient, did: string, roles: readonly string[] } | { stop: Step }> {
  const acting = await actingAccount(s, deps)
  if ('stop' in acting) return acting
  return { registry: deps.platform.as(acting.signer), did: acting.signer.did(), roles: acting.account.roles }
}

/**
 * What the user is told when the registry fails: unreachable, slow or failing on its side (or refusing
 * the account's invocation) ends the session; any other refusal stays on the screen. Logged either way.
 */
export function registryFailure (error: unknown, s: Session, deps: MachineDeps, context: string): Step {
  if (!isPlatformClientError(error)) throw error
  deps.platform.report(error, { customerId: s.customerId }, `registry ${context} failed`)
  if (error.statusCode >= 500 || error.statusCode === 401 || error.code.startsWith('PLATFORM_')) {
    return end('platform.unavailable')
  }
  return refuse(s, 'platform.refused')
}

/** Runs a registry call for a state's guard; a failure becomes the step `registryFailure` says. */
export async function withRegistry (
  s: Session,
  deps: MachineDeps,
  context: string,
  work: (registry: PlatformClient, did: string, roles: readonly string[]) => Promise<Step>
): Promise<Step> {
  const access = await registryAs(s, deps)
  if ('stop' in access) return access.stop
  try {
    return await work(access.registry, access.did, access.roles)
  } catch (error) {
    return registryFailure(error, s, deps, context)
  }
}
