/**
 * CHAIN_METHODS_ALLOW / CHAIN_METHODS_DENY: which gRPC methods get routes. An entry is a full method
 * (`cosmos.bank.v1beta1.Query/Balance`), a service (`cosmos.bank.v1beta1.Query`: all its methods), a
 * package prefix ending in `.` (`cosmos.`) or any prefix ending in `*`; a leading `/` is ignored.
 */
function matches (entry: string, method: string): boolean {
  const name = entry.startsWith('/') ? entry.slice(1) : entry
  if (name.endsWith('*')) return method.startsWith(name.slice(0, -1))
  if (name.endsWith('.')) return method.startsWith(name)
  return method === name || method.startsWith(`${name}/`)
}

/** true when `method` (`pkg.Service/Method`) is served: allowed (or no allow list) and not denied. */
export function createMethodFilter (allow: readonly string[], deny: readonly string[]) {
  return (method: string): boolean =>
    (allow.length === 0 || allow.some((entry) => matches(entry, method))) &&
    !deny.some((entry) => matches(entry, method))
}
