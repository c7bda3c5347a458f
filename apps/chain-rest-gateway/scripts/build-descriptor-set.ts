// Compiles the .proto sources under proto/ into a google.protobuf.FileDescriptorSet without
// protoc: protobufjs parses and resolves the files, this module writes the descriptor messages
// (custom options included, which protobufjs' own descriptor export drops) with @bufbuild/protobuf.
import { readdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path'
import protobuf from 'protobufjs'
import {
  create,
  createFileRegistry,
  setExtension,
  toBinary,
  type DescExtension,
  type FileRegistry,
  type Message
} from '@bufbuild/protobuf'
import {
  DescriptorProtoSchema,
  EnumDescriptorProtoSchema,
  FieldDescriptorProto_Label as Label,
  FieldDescriptorProto_Type as FieldType,
  FieldDescriptorProtoSchema,
  FieldOptionsSchema,
  FileDescriptorProtoSchema,
  FileDescriptorSetSchema,
  MethodOptionsSchema,
  ServiceDescriptorProtoSchema,
  file_google_protobuf_any as anyFile,
  file_google_protobuf_descriptor as descriptorFile,
  file_google_protobuf_duration as durationFile,
  file_google_protobuf_timestamp as timestampFile,
  type DescriptorProto,
  type EnumDescriptorProto,
  type FieldDescriptorProto,
  type FileDescriptorProto,
  type ServiceDescriptorProto
} from '@bufbuild/protobuf/wkt'

const require = createRequire(import.meta.url)

const SCALARS: Record<string, FieldType> = {
  double: FieldType.DOUBLE,
  float: FieldType.FLOAT,
  int64: FieldType.INT64,
  uint64: FieldType.UINT64,
  int32: FieldType.INT32,
  fixed64: FieldType.FIXED64,
  fixed32: FieldType.FIXED32,
  bool: FieldType.BOOL,
  string: FieldType.STRING,
  bytes: FieldType.BYTES,
  uint32: FieldType.UINT32,
  sfixed32: FieldType.SFIXED32,
  sfixed64: FieldType.SFIXED64,
  sint32: FieldType.SINT32,
  sint64: FieldType.SINT64
}

/** Well-known types come from @bufbuild/protobuf's embedded descriptors, exactly as protoc ships them. */
const WELL_KNOWN = [descriptorFile, timestampFile, durationFile, anyFile].map((f) => f.proto)

/** protoc's json_name: lowerCamelCase of the field name. */
function jsonName (name: string): string {
  return name.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase())
}

/** A custom option to set once the registry knows the extension: [target options, extension name, value]. */
type PendingOption = [Message, string, unknown]

function listProtoFiles (dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.proto'))
    .map((f) => f.split(sep).join('/'))
    .sort()
}

function customOptions (options: Record<string, unknown> | undefined): Array<[string, unknown]> {
  return Object.entries(options ?? {})
    .filter(([key]) => key.startsWith('('))
    .map(([key, value]) => [key.replace(/^\((.*)\)$/, '$1'), value])
}

function fieldDescriptor (field: protobuf.Field, pending: PendingOption[], oneofIndex?: number): FieldDescriptorProto {
  const scalar = SCALARS[field.type]
  const resolved = field.resolvedType
  const descriptor = create(FieldDescriptorProtoSchema)
  descriptor.name = field.name
  descriptor.number = field.id
  descriptor.jsonName = jsonName(field.name)
  descriptor.label = field.repeated ? Label.REPEATED : field.required ? Label.REQUIRED : Label.OPTIONAL
  if (scalar !== undefined) {
    descriptor.type = scalar
  } else if (resolved instanceof protobuf.Enum) {
    descriptor.type = FieldType.ENUM
    descriptor.typeName = resolved.fullName
  } else if (resolved instanceof protobuf.Type) {
    descriptor.type = FieldType.MESSAGE
    descriptor.typeName = resolved.fullName
  } else {
    throw new Error(`unresolved type ${field.type} of ${field.fullName}`)
  }
  if (oneofIndex !== undefined) descriptor.oneofIndex = oneofIndex
  const options = create(FieldOptionsSchema)
  let hasOptions = false
  if (field.options?.deprecated === true) {
    options.deprecated = true
    hasOptions = true
  }
  for (const [name, value] of customOptions(field.options)) {
    pending.push([options, name, value])
    hasOptions = true
  }
  if (hasOptions) descriptor.options = options
  return descriptor
}

function enumDescriptor (type: protobuf.Enum): EnumDescriptorProto {
  return create(EnumDescriptorProtoSchema, {
    name: type.name,
    value: Object.entries(type.values).map(([name, number]) => ({ name, number }))
  })
}

function messageDescriptor (type: protobuf.Type, pending: PendingOption[]): DescriptorProto {
  const oneofs = type.oneofsArray.map((o) => o.name)
  const nested = type.nestedArray
  return create(DescriptorProtoSchema, {
    name: type.name,
    field: type.fieldsArray.map((field) => {
      const index = field.partOf !== null ? oneofs.indexOf(field.partOf.name) : -1
      return fieldDescriptor(field, pending, index >= 0 ? index : undefined)
    }),
    oneofDecl: oneofs.map((name) => ({ name })),
    nestedType: nested
      .filter((n): n is protobuf.Type => n instanceof protobuf.Type)
      .map((n) => messageDescriptor(n, pending)),
    enumType: nested.filter((n): n is protobuf.Enum => n instanceof protobuf.Enum).map(enumDescriptor)
  })
}

function serviceDescriptor (service: protobuf.Service, pending: PendingOption[]): ServiceDescriptorProto {
  return create(ServiceDescriptorProtoSchema, {
    name: service.name,
    method: service.methodsArray.map((method) => {
      method.resolve()
      const options = create(MethodOptionsSchema)
      const parsed = (method.parsedOptions ?? []) as Array<Record<string, unknown>>
      let hasOptions = false
      for (const entry of parsed) {
        for (const [name, value] of customOptions(entry)) {
          pending.push([options, name, value])
          hasOptions = true
        }
      }
      return {
        name: method.name,
        inputType: method.resolvedRequestType!.fullName,
        outputType: method.resolvedResponseType!.fullName,
        ...(hasOptions ? { options } : {})
      }
    })
  })
}

function extensionDescriptors (namespace: protobuf.NamespaceBase, pending: PendingOption[]): FieldDescriptorProto[] {
  return namespace.nestedArray
    .filter((n): n is protobuf.Field => n instanceof protobuf.Field && n.extend !== undefined)
    .map((field) => {
      const descriptor = fieldDescriptor(field, pending)
      descriptor.extendee = (field.extensionField?.parent ?? namespace.lookupType(field.extend!)).fullName
      return descriptor
    })
}

function packageNamespace (root: protobuf.Root, pkg: string): protobuf.NamespaceBase {
  return pkg === '' ? root : root.lookup(pkg) as protobuf.Namespace
}

/** Builds the descriptor set of every .proto file under `protoDir`, well-known types included. */
export function buildDescriptorSet (dir: string): Uint8Array {
  const protoDir = resolve(dir)
  const files = listProtoFiles(protoDir)
  const root = new protobuf.Root()
  root.resolvePath = (_origin, target) => {
    if (isAbsolute(target)) return target
    // descriptor.proto is shipped as a file by protobufjs; the other well-known types are built in.
    if (target === 'google/protobuf/descriptor.proto') return join(dirname(require.resolve('protobufjs')), target)
    return target.startsWith('google/protobuf/') ? target : join(protoDir, target)
  }
  root.loadSync(files.map((f) => join(protoDir, f)), { keepCase: true, alternateCommentMode: false })
  root.resolveAll()

  const pending: PendingOption[] = []
  const sources = new Map<string, { pkg: string, syntax: string, imports: string[] }>()
  for (const file of files) {
    const parsed = protobuf.parse(readSource(protoDir, file), { keepCase: true })
    sources.set(file, {
      pkg: parsed.package ?? '',
      syntax: /syntax\s*=\s*"proto2"/.test(readSource(protoDir, file)) ? 'proto2' : 'proto3',
      imports: parsed.imports ?? []
    })
  }

  const byFile = (object: protobuf.ReflectionObject, file: string) =>
    object.filename !== null && relative(protoDir, object.filename).split(sep).join('/') === file

  const descriptors: FileDescriptorProto[] = files.map((file) => {
    const { pkg, syntax, imports } = sources.get(file)!
    const namespace = packageNamespace(root, pkg)
    const own = namespace.nestedArray.filter((n) => byFile(n, file))
    return create(FileDescriptorProtoSchema, {
      name: file,
      package: pkg,
      dependency: imports,
      messageType: own
        .filter((n): n is protobuf.Type => n instanceof protobuf.Type)
        .map((t) => messageDescriptor(t, pending)),
      enumType: own.filter((n): n is protobuf.Enum => n instanceof protobuf.Enum).map(enumDescriptor),
      service: own
        .filter((n): n is protobuf.Service => n instanceof protobuf.Service)
        .map((s) => serviceDescriptor(s, pending)),
      extension: extensionDescriptors({ nestedArray: own } as unknown as protobuf.NamespaceBase, pending),
      syntax: syntax === 'proto3' ? 'proto3' : ''
    })
  })

  const set = create(FileDescriptorSetSchema, { file: [...WELL_KNOWN, ...dependencyOrder(descriptors)] })
  const registry = createFileRegistry(set)
  for (const [options, name, value] of pending) {
    const extension = registry.getExtension(name)
    if (extension === undefined) throw new Error(`unknown option (${name})`)
    setExtension(
      options,
      extension as DescExtension & Parameters<typeof setExtension>[1],
      optionValue(registry, extension, value)
    )
  }
  return toBinary(FileDescriptorSetSchema, set)
}

/** Files after their imports, as protoc writes a set (readers may build their registry in one pass). */
function dependencyOrder (files: FileDescriptorProto[]): FileDescriptorProto[] {
  const byName = new Map(files.map((f) => [f.name, f]))
  const ordered: FileDescriptorProto[] = []
  const seen = new Set<string>()
  const visit = (file: FileDescriptorProto) => {
    if (seen.has(file.name)) return
    seen.add(file.name)
    for (const dep of file.dependency) {
      const found = byName.get(dep)
      if (found !== undefined) visit(found)
    }
    ordered.push(file)
  }
  files.forEach(visit)
  return ordered
}

function optionValue (registry: FileRegistry, extension: DescExtension, value: unknown): unknown {
  if (extension.fieldKind !== 'message') return value
  // Aggregate options such as `(google.api.http) = { get: "…" }` become messages; oneof members
  // (the HttpRule pattern) are set through their case.
  const desc = extension.message
  const init: Record<string, unknown> = {}
  for (const [key, fieldValue] of Object.entries(value as Record<string, unknown>)) {
    const field = desc.fields.find((f) => f.name === key)
    if (field === undefined) throw new Error(`unknown field ${key} in option (${extension.typeName})`)
    if (field.oneof !== undefined) init[field.oneof.localName] = { case: field.localName, value: fieldValue }
    else init[field.localName] = fieldValue
  }
  return create(registry.getMessage(desc.typeName)!, init)
}

function readSource (dir: string, file: string): string {
  return readFileSync(join(dir, file), 'utf8')
}
