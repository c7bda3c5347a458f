import { isPlatformClientError, type Domain, type PlatformClient } from '@impact/platform-client'
import { plainGsm7, shorten } from '../screen.ts'
import type { DomainView, Session } from '../session.ts'
import { actingAccount } from './account-access.ts'
import { end, refuse, type MachineDeps, type Step } from './types.ts'

export const MAX_LABEL = 24

/** Cut to its start and end, as a person can compare it. */
export const shortDid = (did: string): string => (did.length > 28 ? `${did.slice(0, 21)}...${did.slice(-4)}` : did)

const day = (iso: string | null | undefined) => (typeof iso === 'string' ? iso.slice(0, 10) : undefined)

function dateOf (domain: Domain): string | undefined {
  switch (domain.status) {
    case 'verified': return day(domain.verifiedAt)
    case 'verification_submitted': return day(domain.verification?.deadline)
    case 'expired': return day(domain.validUntil)
    case 'deactivated': return day(domain.deactivatedAt)
    default: return undefined
  }
}

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

/** Never without a session that proved the account's PIN. */
export async function registryAs (
  s: Session,
  deps: MachineDeps
): Promise<{ registry: PlatformClient, did: string, roles: readonly string[] } | { stop: Step }> {
  const acting = await actingAccount(s, deps)
  if ('stop' in acting) return acting
  return { registry: deps.platform.as(acting.signer), did: acting.signer.did(), roles: acting.account.roles }
}

/** Unreachable or failing registries end the session; any other refusal stays on the screen. */
export function registryFailure (error: unknown, s: Session, deps: MachineDeps, context: string): Step {
  if (!isPlatformClientError(error)) throw error
  deps.platform.report(error, { customerId: s.customerId }, `registry ${context} failed`)
  if (error.statusCode >= 500 || error.statusCode === 401 || error.code.startsWith('PLATFORM_')) {
    return end('platform.unavailable')
  }
  return refuse(s, 'platform.refused')
}

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
