/**
 * google.api.http path templates (`Template = "/" Segments [":" Verb]`) compiled to find-my-way
 * paths for Fastify: `{id}` → `:id`, `{x=**}` → `*`, multi-segment variables (`{name=shelves/*}`)
 * → one parameter per wildcard, joined back into the variable's value.
 */
export type Segment =
  | { kind: 'literal', value: string }
  | { kind: 'wildcard' }
  | { kind: 'deep' }
  | { kind: 'variable', fieldPath: string, segments: Segment[] }

export interface PathBinding {
  fieldPath: string
  /** Parts of the value: a Fastify parameter name or a literal, joined with `/`. */
  parts: Array<{ param: string } | { literal: string }>
  /** A `**` binding: may hold `/`; single-segment values may not (upstream would not match). */
  multiSegment: boolean
}

export interface CompiledTemplate {
  template: string
  fastifyPath: string
  bindings: PathBinding[]
  /** Shape key: templates differing only in parameter names collide in the router. */
  shape: string
  /** Literal segments after a `**` variable (grpc-gateway matches them from the end of the path). */
  tail: string[]
}

export class TemplateError extends Error {}

function parseSegments (text: string, nested: boolean): Segment[] {
  const segments: Segment[] = []
  let rest = text
  while (rest.length > 0) {
    if (rest.startsWith('{')) {
      if (nested) throw new TemplateError('nested variable')
      const end = rest.indexOf('}')
      if (end < 0) throw new TemplateError('unclosed variable')
      const body = rest.slice(1, end)
      const eq = body.indexOf('=')
      const fieldPath = eq < 0 ? body : body.slice(0, eq)
      if (!/^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/.test(fieldPath)) {
        throw new TemplateError(`bad field path ${fieldPath}`)
      }
      segments.push({
        kind: 'variable',
        fieldPath,
        segments: eq < 0 ? [{ kind: 'wildcard' }] : parseSegments(body.slice(eq + 1), true)
      })
      rest = rest.slice(end + 1)
    } else {
      const slash = rest.indexOf('/')
      const raw = slash < 0 ? rest : rest.slice(0, slash)
      if (raw === '**') segments.push({ kind: 'deep' })
      else if (raw === '*') segments.push({ kind: 'wildcard' })
      else if (raw === '' || /[{}]/.test(raw)) throw new TemplateError(`bad segment "${raw}"`)
      else segments.push({ kind: 'literal', value: raw })
      rest = slash < 0 ? '' : rest.slice(slash)
    }
    if (rest.startsWith('/')) {
      rest = rest.slice(1)
      if (rest === '') throw new TemplateError('trailing slash')
    } else if (rest.length > 0) {
      throw new TemplateError('segments must be separated by /')
    }
  }
  return segments
}

export function parseTemplate (template: string): { segments: Segment[], verb: string | undefined } {
  if (!template.startsWith('/')) throw new TemplateError('template must start with /')
  // A verb is a `:` after the last segment, outside any variable.
  const lastSlash = template.lastIndexOf('/')
  const lastClose = template.lastIndexOf('}')
  const colon = template.indexOf(':', Math.max(lastSlash, lastClose))
  const path = colon < 0 ? template.slice(1) : template.slice(1, colon)
  const verb = colon < 0 ? undefined : template.slice(colon + 1)
  return { segments: path === '' ? [] : parseSegments(path, false), verb }
}

const escapeLiteral = (value: string) => value.replace(/:/g, '::')

/** Compiles a template into the Fastify path and the bindings that rebuild each variable. */
export function compileTemplate (template: string): CompiledTemplate {
  const { segments, verb } = parseTemplate(template)
  const parts: string[] = []
  const shape: string[] = []
  const bindings: PathBinding[] = []
  const tail: string[] = []
  const used = new Set<string>()
  let deepSeen = false
  const paramName = (base: string) => {
    let name = base.replace(/[^A-Za-z0-9_]/g, '_')
    for (let i = 2; used.has(name); i++) name = `${base.replace(/[^A-Za-z0-9_]/g, '_')}_${i}`
    used.add(name)
    return name
  }
  const emit = (segment: Segment, owner?: PathBinding) => {
    if (deepSeen) {
      if (segment.kind !== 'literal' || owner !== undefined) {
        throw new TemplateError('only literal segments may follow a ** variable')
      }
      tail.push(segment.value)
      shape.push(segment.value)
      return
    }
    switch (segment.kind) {
      case 'literal':
        parts.push(escapeLiteral(segment.value))
        shape.push(segment.value)
        owner?.parts.push({ literal: segment.value })
        return
      case 'wildcard': {
        const name = paramName(owner !== undefined ? owner.fieldPath : '_segment')
        parts.push(`:${name}`)
        shape.push(':')
        owner?.parts.push({ param: name })
        return
      }
      case 'deep':
        deepSeen = true
        parts.push('*')
        shape.push('*')
        if (owner !== undefined) {
          owner.parts.push({ param: '*' })
          owner.multiSegment = true
        }
        return
      case 'variable': {
        if (bindings.some((b) => b.fieldPath === segment.fieldPath)) {
          throw new TemplateError(`${segment.fieldPath} bound twice`)
        }
        const binding: PathBinding = { fieldPath: segment.fieldPath, parts: [], multiSegment: false }
        bindings.push(binding)
        segment.segments.forEach((inner) => emit(inner, binding))
      }
    }
  }
  segments.forEach((segment) => emit(segment))
  if (deepSeen && verb !== undefined) throw new TemplateError('a verb may not follow a ** variable')
  const verbSuffix = verb !== undefined ? `::${verb}` : ''
  return {
    template,
    fastifyPath: `/${parts.join('/')}${verbSuffix}`,
    bindings,
    shape: `/${shape.join('/')}${verb !== undefined ? `:${verb}` : ''}`,
    tail
  }
}

/** The value of each bound field from Fastify's decoded parameters; undefined when a value is not acceptable. */
export function bindingValues (
  bindings: PathBinding[],
  params: Record<string, string | undefined>
): Array<[string, string]> | undefined {
  const values: Array<[string, string]> = []
  for (const binding of bindings) {
    const pieces: string[] = []
    for (const part of binding.parts) {
      if ('literal' in part) {
        pieces.push(part.literal)
        continue
      }
      const value = params[part.param] ?? ''
      // A decoded %2F inside a one-segment variable: upstream splits the path first and finds no route.
      if (part.param !== '*' && value.includes('/')) return undefined
      pieces.push(value)
    }
    values.push([binding.fieldPath, pieces.join('/')])
  }
  return values
}
