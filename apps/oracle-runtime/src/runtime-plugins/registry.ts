import { ConfigError } from '@impact/service-kit'
import type { Config } from '../config.ts'
import type { PluginDefinition } from './types.ts'

export interface PluginDecision { name: string, enabled: boolean, reason: string }

/**
 * Decides which plugins run: `features[name]` forces one on or off, otherwise its default holds.
 * A plugin forced on whose env or dependencies are missing stops the app (a misconfiguration);
 * a default-on one is just left off, with the reason reported. Returns enabled plugins in
 * dependency order.
 */
export function resolvePlugins (
  definitions: PluginDefinition[],
  features: Record<string, boolean>,
  config: Config
) {
  const byName = new Map(definitions.map((d) => [d.name, d]))
  const issues: string[] = []
  for (const name of Object.keys(features)) {
    if (!byName.has(name)) issues.push(`features: unknown plugin ${name} (known: ${[...byName.keys()].join(', ')})`)
  }
  const decisions = new Map<string, PluginDecision>()
  for (const d of definitions) {
    const forced = features[d.name]
    if (forced === false) {
      decisions.set(d.name, { name: d.name, enabled: false, reason: 'disabled by features' })
      continue
    }
    const missing = d.attributes.requiredEnv.filter((key) => config[key] === undefined || config[key] === '')
    if (missing.length > 0) {
      const verb = missing.length > 1 ? 'are' : 'is'
      if (forced === true) issues.push(`plugin ${d.name} is enabled but ${missing.join(', ')} ${verb} not set`)
      decisions.set(d.name, { name: d.name, enabled: false, reason: `missing ${missing.join(', ')}` })
      continue
    }
    const enabled = forced ?? d.attributes.defaultEnabled
    const reason = forced === true ? 'enabled by features' : enabled ? 'on by default' : 'off by default'
    decisions.set(d.name, { name: d.name, enabled, reason })
  }
  // Drop plugins whose dependencies are off, until nothing changes.
  for (let changed = true; changed;) {
    changed = false
    for (const d of definitions) {
      const decision = decisions.get(d.name)
      if (decision?.enabled !== true) continue
      const off = d.attributes.dependencies.filter((dep) => decisions.get(dep)?.enabled !== true)
      if (off.length === 0) continue
      const verb = off.length > 1 ? 'are' : 'is'
      if (features[d.name] === true) issues.push(`plugin ${d.name} needs ${off.join(', ')}, which ${verb} not enabled`)
      decisions.set(d.name, { name: d.name, enabled: false, reason: `needs ${off.join(', ')}` })
      changed = true
    }
  }
  if (issues.length > 0) throw new ConfigError(issues)
  const ordered: PluginDefinition[] = []
  const visit = (d: PluginDefinition) => {
    if (ordered.includes(d)) return
    for (const dep of d.attributes.dependencies) visit(byName.get(dep) as PluginDefinition)
    ordered.push(d)
  }
  for (const d of definitions) if (decisions.get(d.name)?.enabled === true) visit(d)
  return { enabled: ordered, decisions: [...decisions.values()] }
}

/**
 * The `features` that apply: ORACLE_FEATURES from the environment, each name overridden by the app
 * option `features` (an entry file's choice wins). An unknown name in the environment stops the app.
 */
export function mergeFeatures (
  definitions: PluginDefinition[],
  fromEnv: Record<string, boolean>,
  fromOptions: Record<string, boolean> = {}
): Record<string, boolean> {
  const known = definitions.map((d) => d.name)
  const unknown = Object.keys(fromEnv).filter((name) => !known.includes(name))
  if (unknown.length > 0) {
    throw new ConfigError(unknown.map((name) => `ORACLE_FEATURES: unknown plugin ${name} (known: ${known.join(', ')})`))
  }
  return { ...fromEnv, ...fromOptions }
}

/** Matches a request against route specs: `METHOD /path`, `/path` (any method), `/prefix/*`. */
export function routeMatcher (specs: string[]) {
  const exact = new Set<string>()
  const prefixes: Array<{ method: string | undefined, prefix: string }> = []
  for (const spec of specs) {
    const [first, second] = spec.trim().split(/\s+/)
    const method = second === undefined ? undefined : first?.toUpperCase()
    const path = second ?? first ?? ''
    if (path.endsWith('*')) prefixes.push({ method, prefix: path.slice(0, -1) })
    else exact.add(`${method ?? '*'} ${path}`)
  }
  return (method: string, url: string) =>
    exact.has(`* ${url}`) || exact.has(`${method} ${url}`) ||
    prefixes.some((p) => (p.method === undefined || p.method === method) && url.startsWith(p.prefix))
}
