import { readFileSync } from 'node:fs'
import {
  createFileRegistry,
  fromBinary,
  getExtension,
  hasExtension,
  type DescExtension,
  type DescField,
  type DescMethod,
  type FileRegistry
} from '@bufbuild/protobuf'
import { FileDescriptorSetSchema, type FileDescriptorProto } from '@bufbuild/protobuf/wkt'

/** The descriptor set generated from proto/ by `npm run descriptors` (same relative place from src/ and dist/). */
export const BUNDLED_SET_URL = new URL('../../descriptors/chain.binpb', import.meta.url)

let bundledFiles: FileDescriptorProto[] | undefined

export function bundledDescriptorFiles (): FileDescriptorProto[] {
  bundledFiles ??= fromBinary(FileDescriptorSetSchema, readFileSync(BUNDLED_SET_URL)).file
  return bundledFiles
}

/** cosmos.reflection.v1.FileDescriptorsResponse has a FileDescriptorSet's wire shape. */
export function decodeFileDescriptors (bytes: Uint8Array): FileDescriptorProto[] {
  return fromBinary(FileDescriptorSetSchema, bytes).file
}

/** Borrows missing imports from the bundled set and drops unresolvable files, so one odd file costs no routes. */
export function buildRegistry (
  files: FileDescriptorProto[],
  onSkip?: (file: string, missing: string) => void
): FileRegistry {
  const byName = new Map<string, FileDescriptorProto>()
  for (const file of bundledDescriptorFiles()) byName.set(file.name, file)
  for (const file of files) byName.set(file.name, file)
  const usable = new Map<string, boolean>()
  const check = (name: string, trail: Set<string>): boolean => {
    const known = usable.get(name)
    if (known !== undefined) return known
    const file = byName.get(name)
    if (file === undefined || trail.has(name)) return false
    trail.add(name)
    const missing = file.dependency.find((dep) => !check(dep, trail))
    if (missing !== undefined) onSkip?.(name, missing)
    usable.set(name, missing === undefined)
    return missing === undefined
  }
  const ordered: FileDescriptorProto[] = []
  const placed = new Set<string>()
  const place = (name: string) => {
    if (placed.has(name) || usable.get(name) !== true) return
    placed.add(name)
    const file = byName.get(name)!
    file.dependency.forEach(place)
    ordered.push(file)
  }
  for (const name of byName.keys()) if (check(name, new Set())) place(name)
  return createFileRegistry({ $typeName: 'google.protobuf.FileDescriptorSet', file: ordered })
}

/** What JSON rendering needs to know about a field beyond its type (gogoproto and cosmos_proto options). */
export interface FieldTraits {
  /** A gogoproto non-nullable message: rendered as an object (defaults) even when absent on the wire. */
  nonNullable: boolean
  /** gogoproto customtype Dec/Int: integer text on the wire (Dec scaled by 10^18), rendered as the node does. */
  custom: 'dec' | 'int' | undefined
  /** cosmos_proto.scalar alone (a plain Go string): written as it is, empty included; for /docs. */
  scalar: 'dec' | 'int' | undefined
  /** gogoproto.casttype RawContractMessage (wasmd): bytes holding JSON, written inline as the node does. */
  rawJson: boolean
}
export interface OptionReader {
  http: (method: DescMethod) => HttpRuleValue | undefined
  traits: (field: DescField) => FieldTraits
}

export interface HttpRuleValue {
  pattern: { case: string | undefined, value?: unknown }
  body: string
  additionalBindings: HttpRuleValue[]
}

const NO_TRAITS: FieldTraits = { nonNullable: false, custom: undefined, scalar: undefined, rawJson: false }

/** Reads options by extension number, so it works whichever registry the descriptors came from. */
export function createOptionReader (): OptionReader {
  const bundled = buildRegistry([])
  const ext = (name: string) => bundled.getExtension(name) as DescExtension & Parameters<typeof getExtension>[1]
  const http = ext('google.api.http')
  const nullable = ext('gogoproto.nullable')
  const customtype = ext('gogoproto.customtype')
  const casttype = ext('gogoproto.casttype')
  const scalar = ext('cosmos_proto.scalar')
  const cache = new WeakMap<DescField, FieldTraits>()
  return {
    http (method) {
      const options = method.proto.options
      if (options === undefined || !hasExtension(options, http)) return undefined
      return getExtension(options, http) as HttpRuleValue
    },
    traits (field) {
      let traits = cache.get(field)
      if (traits !== undefined) return traits
      const options = field.proto.options
      if (options === undefined) {
        traits = NO_TRAITS
      } else {
        const text = (extension: typeof scalar) =>
          hasExtension(options, extension) ? String(getExtension(options, extension)) : ''
        const custom = text(customtype)
        const scalarName = text(scalar)
        traits = {
          nonNullable: hasExtension(options, nullable) && getExtension(options, nullable) === false,
          custom: /(^|\.)(Legacy)?Dec$/.test(custom) ? 'dec' : /(^|\.)U?Int$/.test(custom) ? 'int' : undefined,
          scalar: scalarName === 'cosmos.Dec' ? 'dec' : /^cosmos\.U?Int$/.test(scalarName) ? 'int' : undefined,
          rawJson: /(^|\.)RawContractMessage$/.test(text(casttype))
        }
      }
      cache.set(field, traits)
      return traits
    }
  }
}
