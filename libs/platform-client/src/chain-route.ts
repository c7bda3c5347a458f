import { PlatformClientError } from './errors.ts'

/** Path characters of a REST route (RFC 3986 pchar and `/`); no `?`, `#` or spaces. */
const ROUTE = /^\/[A-Za-z0-9._~!$&'()*+,;=:@%/-]*$/

const invalidRoute = (route: string) => new PlatformClientError(
  'PLATFORM_INVALID_ROUTE',
  `Not a chain route: ${JSON.stringify(route.slice(0, 200))} (expected a path such as /ixo/entity/<did>)`,
  400,
  { service: 'chain-rest-gateway' }
)

/**
 * A chain route as given by a caller (possibly a model), checked to stay under the gateway's base
 * path: an absolute path, no `.`/`..` segments (also percent-encoded), so it can never reach another
 * service behind the same host. A `?query` in the route joins `query`.
 */
export function chainRoute (
  route: string,
  query: Record<string, string | number | boolean | undefined> = {}
): { path: string, search: URLSearchParams } {
  const at = route.indexOf('?')
  const path = at < 0 ? route : route.slice(0, at)
  const search = new URLSearchParams(at < 0 ? '' : route.slice(at + 1))
  if (!ROUTE.test(path) || path.startsWith('//')) throw invalidRoute(route)
  let segments: string[]
  try {
    segments = path.split('/').map((segment) => decodeURIComponent(segment))
  } catch {
    throw invalidRoute(route)
  }
  if (segments.some((segment) => segment === '.' || segment === '..' || segment.includes('/'))) {
    throw invalidRoute(route)
  }
  for (const [key, value] of Object.entries(query)) if (value !== undefined) search.set(key, String(value))
  return { path, search }
}
