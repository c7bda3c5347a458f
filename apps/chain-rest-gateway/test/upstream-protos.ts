import { fileURLToPath } from 'node:url'
import { fromBinary } from '@bufbuild/protobuf'
import { FileDescriptorSetSchema, type FileDescriptorProto } from '@bufbuild/protobuf/wkt'
import { buildDescriptorSet } from '../scripts/build-descriptor-set.ts'

/** Real upstream .proto files (test/fixtures/upstream-proto, see SOURCES.md there), compiled on first use. */
const DIR = fileURLToPath(new URL('./fixtures/upstream-proto', import.meta.url))

let compiled: FileDescriptorProto[] | undefined

/** The compiled files `roots` need, their imports first (as a node's reflection service lists them). */
export function upstreamFiles (...roots: string[]): FileDescriptorProto[] {
  compiled ??= fromBinary(FileDescriptorSetSchema, buildDescriptorSet(DIR)).file
  const byName = new Map(compiled.map((file) => [file.name, file]))
  const picked: FileDescriptorProto[] = []
  const seen = new Set<string>()
  const visit = (name: string) => {
    const file = byName.get(name)
    if (file === undefined) throw new Error(`${name} is not among the upstream protos`)
    if (seen.has(name)) return
    seen.add(name)
    file.dependency.forEach(visit)
    picked.push(file)
  }
  roots.forEach(visit)
  return picked
}
