import type { DescMethod, FileRegistry } from '@bufbuild/protobuf'
import type { HttpRuleValue, OptionReader } from './descriptors.ts'
import { compileTemplate, type CompiledTemplate } from './path-template.ts'

/** One REST route: a GET binding of a unary query method, optionally served under an alias prefix. */
export interface GatewayRoute {
  grpcPath: string
  method: DescMethod
  compiled: CompiledTemplate
  /** Set on routes registered under a legacy prefix: the canonical template. */
  aliasOf: string | undefined
}

export interface CatalogOptions {
  services: string[]
  /** Whether a method (`pkg.Service/Method`) may be served (CHAIN_METHODS_ALLOW / _DENY); all when absent. */
  methods?: (method: string) => boolean
  /** [alias, target] pairs: path prefixes, or whole templates when they hold variables. */
  aliases: Array<[string, string]>
  /** Paths the app serves itself (health, docs); rules colliding with them are left out. */
  reserved: (path: string) => boolean
}

export interface Catalog {
  routes: GatewayRoute[]
  skipped: Array<{ rule: string, reason: string }>
}

function getBindings (rule: HttpRuleValue): Array<{ verb: string | undefined; path: string; body: string }> {
  const own =
    rule.pattern.case === 'custom'
      ? {
          verb: (rule.pattern.value as { kind: string }).kind.toLowerCase(),
          path: (rule.pattern.value as { path: string }).path,
          body: rule.body
        }
      : { verb: rule.pattern.case, path: String(rule.pattern.value ?? ''), body: rule.body }
  return [own, ...rule.additionalBindings.flatMap(getBindings)]
}

const VARIABLE = /\{([^}=]+)(=[^}]*)?\}/g
/** A template with its variables' patterns left out: `/a/{name=shelves/*}` reads `/a/{name}`. */
export const plainTemplate = (template: string) => template.replace(VARIABLE, '{$1}')

/** A rule's template under an alias: TARGET is one whole template when it has variables, else a path prefix. */
function withAlias (template: string, alias: string, target: string): string | undefined {
  if (target.includes('{')) {
    if (plainTemplate(template) !== target) return undefined
    const variables = new Map([...template.matchAll(VARIABLE)].map((m) => [m[1], m[0]]))
    return alias.replace(VARIABLE, (whole, name: string) => variables.get(name) ?? whole)
  }
  const base = target === '/' ? '' : target
  if (base !== '' && template !== base && !template.startsWith(`${base}/`)) return undefined
  return `${alias === '/' ? '' : alias}${template.slice(base.length)}`
}

/**
 * The GET bindings without a body of unary methods (the gateway is query-only); of colliding templates the
 * first is kept, as upstream's router does.
 */
export function buildCatalog (registry: FileRegistry, options: OptionReader, catalog: CatalogOptions): Catalog {
  const routes: GatewayRoute[] = []
  const skipped: Catalog['skipped'] = []
  const shapes = new Set<string>()
  const add = (method: DescMethod, template: string, aliasOf: string | undefined) => {
    let compiled: CompiledTemplate
    try {
      compiled = compileTemplate(template)
    } catch (error) {
      skipped.push({ rule: template, reason: (error as Error).message })
      return
    }
    if (shapes.has(compiled.shape) || catalog.reserved(compiled.fastifyPath)) {
      skipped.push({ rule: template, reason: 'path already taken' })
      return
    }
    shapes.add(compiled.shape)
    routes.push({ grpcPath: `/${method.parent.typeName}/${method.name}`, method, compiled, aliasOf })
  }

  const methods: Array<[DescMethod, string]> = []
  for (const type of registry) {
    if (type.kind !== 'service') continue
    if (catalog.services.length > 0 && !catalog.services.some((prefix) => type.typeName.startsWith(prefix))) continue
    for (const method of type.methods) {
      const rule = options.http(method)
      if (rule === undefined) continue
      if (catalog.methods !== undefined && !catalog.methods(`${type.typeName}/${method.name}`)) {
        skipped.push({ rule: `${type.typeName}/${method.name}`, reason: 'not allowed by configuration' })
        continue
      }
      for (const binding of getBindings(rule)) {
        if (binding.verb !== 'get' || binding.body !== '' || method.methodKind !== 'unary') {
          skipped.push({
            rule: `${binding.verb?.toUpperCase() ?? '?'} ${binding.path}`,
            reason: 'not a unary GET query'
          })
          continue
        }
        methods.push([method, binding.path])
      }
    }
  }
  // Static templates first, so the first-wins rule matches upstream's registration order.
  methods.sort(([, a], [, b]) => Number(a.includes('{')) - Number(b.includes('{')))
  for (const [method, template] of methods) add(method, template, undefined)
  for (const [alias, target] of catalog.aliases) {
    for (const [method, template] of methods) {
      const aliased = withAlias(template, alias, target)
      if (aliased !== undefined && aliased !== template) add(method, aliased, template)
    }
  }
  return { routes, skipped }
}
