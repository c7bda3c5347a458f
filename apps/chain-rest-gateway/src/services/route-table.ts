import FindMyWay from 'find-my-way'
import type { GatewayRoute } from './route-catalog.ts'

// Built beside each route catalogue so a catalogue swap swaps routing too: Fastify cannot re-route once listening.
export interface RouteMatch<T> {
  entry: T
  /** Decoded router parameters (`*` holds the rest of the path, tail segments removed). */
  params: Record<string, string | undefined>
}

const noop = () => {}

function withoutTail (params: Record<string, string | undefined>, tail: string[]) {
  if (tail.length === 0) return params
  const rest = params['*'] ?? ''
  const suffix = tail.join('/')
  // `**` may match no segment at all: `/a/{x=**}/b` takes `/a/b` with x = ''.
  if (rest === suffix) return { ...params, '*': '' }
  if (!rest.endsWith(`/${suffix}`)) return undefined
  return { ...params, '*': rest.slice(0, -suffix.length - 1) }
}

export function createRouteTable<T extends { route: GatewayRoute }> (entries: T[], maxParamLength: number) {
  const router = FindMyWay({ maxParamLength })
  const byPath = new Map<string, T[]>()
  for (const entry of entries) {
    const path = entry.route.compiled.fastifyPath
    const list = byPath.get(path)
    if (list === undefined) byPath.set(path, [entry])
    else list.push(entry)
  }
  for (const [path, list] of byPath) {
    // Templates requiring segments after `**` first: the bare `**` template would take their paths too.
    list.sort((a, b) => b.route.compiled.tail.length - a.route.compiled.tail.length)
    router.on('GET', path, noop, list)
  }

  return {
    size: entries.length,

    match (url: string): RouteMatch<T> | undefined {
      const found = router.find('GET', url)
      if (found === null) return undefined
      for (const entry of found.store as T[]) {
        const params = withoutTail(found.params, entry.route.compiled.tail)
        if (params !== undefined) return { entry, params }
      }
      return undefined
    }
  }
}

export type RouteTable<T extends { route: GatewayRoute }> = ReturnType<typeof createRouteTable<T>>
