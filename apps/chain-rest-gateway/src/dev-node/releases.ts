/**
 * DEVELOPMENT FIXTURE: an older node binary, as descriptors. Methods and fields of the shipped set
 * are withheld (left out of reflection and, for methods, not served), so a test can upgrade the
 * node at runtime and watch the gateway pick the new routes and fields up.
 */
import { clone } from '@bufbuild/protobuf'
import {
  FileDescriptorProtoSchema,
  type DescriptorProto,
  type FileDescriptorProto
} from '@bufbuild/protobuf/wkt'

export interface Withheld {
  /** gRPC paths, `/ixo.claims.v1beta1.Query/CollectionMemberList`. */
  methods?: string[]
  /** Full field names, `ixo.claims.v1beta1.Collection.disputes_open`. */
  fields?: string[]
}

function withoutFields (message: DescriptorProto, prefix: string, fields: Set<string>) {
  const name = `${prefix}.${message.name}`
  message.field = message.field.filter((field) => !fields.has(`${name}.${field.name}`))
  for (const nested of message.nestedType) withoutFields(nested, name, fields)
}

/** Copies of `files` without the withheld methods and fields (the shipped descriptors stay untouched). */
export function olderRelease (files: FileDescriptorProto[], withheld: Withheld): FileDescriptorProto[] {
  const methods = new Set(withheld.methods ?? [])
  const fields = new Set(withheld.fields ?? [])
  if (methods.size === 0 && fields.size === 0) return files
  return files.map((original) => {
    const file = clone(FileDescriptorProtoSchema, original)
    for (const service of file.service) {
      service.method = service.method.filter((m) => !methods.has(`/${file.package}.${service.name}/${m.name}`))
    }
    for (const message of file.messageType) withoutFields(message, file.package, fields)
    return file
  })
}
