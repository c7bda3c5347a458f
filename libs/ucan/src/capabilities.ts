/** A UCAN capability as the oracle reads it: an ability (`can`) on a resource (`with`). */
export interface Capability { can: string, with: string }

/** The capability an auth invocation carries, and a delegation must grant to authenticate alone. */
export const ORACLE_AUTH_CAPABILITY: Capability = { can: '*', with: 'ixo:oracle' }

/** One of `granted` covers `wanted` (ucan.md §9): ability `*`, equal or `prefix/*`; resource equal or `ucan:*`. */
export function covers (granted: readonly Capability[], wanted: Capability): boolean {
  return granted.some((g) => {
    const ability = g.can === '*' || g.can === wanted.can ||
      (wanted.can !== '*' && g.can.endsWith('/*') && wanted.can.startsWith(g.can.slice(0, -1)))
    return ability && (g.with === wanted.with || g.with === 'ucan:*')
  })
}
