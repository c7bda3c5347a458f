import { AjvCompiler } from '@fastify/ajv-compiler'
import type { FastifyServerOptions } from 'fastify'
import { findUnsafeJson, isRepresentableDateTime } from '@impact/schemas'

type Validate = ((data: unknown, context?: unknown) => unknown) & { errors?: unknown[] | null, schemaEnv?: unknown }
type AjvInstance = { formats: Record<string, unknown>, addFormat: (name: string, format: unknown) => unknown }

/** Runs the platform's storage check (json-safety.ts) before the route's own schema, as part of validation. */
function guarded (validate: Validate): Validate {
  const guard: Validate = (data, context) => {
    const unsafe = findUnsafeJson(data)
    if (unsafe !== undefined) {
      guard.errors = [{ keyword: 'storable', instancePath: unsafe.instancePath, params: {}, message: unsafe.message }]
      return false
    }
    const result = validate(data, context)
    guard.errors = validate.errors
    return result
  }
  // Fastify hands Ajv validators their parent object so a coerced root value can be replaced.
  if (validate.schemaEnv !== undefined) guard.schemaEnv = validate.schemaEnv
  return guard
}

/** `date-time` as ajv-formats checks it, minus what `Date` cannot hold (a leap second). */
function representableDateTimes (ajv: AjvInstance): void {
  const base = ajv.formats['date-time'] as { validate: (value: string) => boolean, compare?: unknown }
  ajv.addFormat('date-time', {
    ...base,
    validate: (value: string) => base.validate(value) && isRepresentableDateTime(value)
  })
}

/**
 * Fastify's Ajv compiler, plus: no request part holding U+0000 or nested deeper than MAX_JSON_DEPTH, and
 * no timestamp `Date` cannot hold, passes validation (400 JSON; an `END` text on USSD routes).
 */
export function validationOptions (
  customOptions: Record<string, unknown>
): Pick<FastifyServerOptions, 'ajv' | 'schemaController'> {
  const compilers = AjvCompiler()
  const buildValidator = (
    externalSchemas: Parameters<typeof compilers>[0],
    ajvOptions: Parameters<typeof compilers>[1]
  ) => {
    const compile = compilers(externalSchemas, ajvOptions)
    return (routeSchema: Parameters<typeof compile>[0]) => guarded(compile(routeSchema) as Validate)
  }
  return {
    ajv: { customOptions, onCreate: representableDateTimes } as FastifyServerOptions['ajv'],
    schemaController: { compilersFactory: { buildValidator: buildValidator as unknown as typeof compilers } }
  }
}
