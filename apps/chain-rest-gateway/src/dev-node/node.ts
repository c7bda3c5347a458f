/**
 * DEVELOPMENT FIXTURE, not a chain: a gRPC server that speaks the ixo entity, iid, claims and
 * token query services (and cosmos.reflection.v1) over invented sample data, so the gateway can
 * be developed and tested without a node. Heights advance with a block timer; records appear at
 * their own height, `x-cosmos-block-height` pins a query, and every answer reports its height.
 * It can play a pruning node, a lagging one (heights from GetLatestBlock) or an older binary that
 * is upgraded at runtime.
 */
import * as grpc from '@grpc/grpc-js'
import { create, fromBinary, toBinary, type DescMessage, type FileRegistry } from '@bufbuild/protobuf'
import { FileDescriptorSetSchema, type FileDescriptorProto } from '@bufbuild/protobuf/wkt'
import { ChainStatusError, GrpcCode } from '../errors.ts'
import { buildRegistry, bundledDescriptorFiles } from '../services/descriptors.ts'
import { createHandlers, type Handler } from './handlers.ts'
import { createTxHandlers } from './tx-handlers.ts'
import { olderRelease, type Withheld } from './releases.ts'
import { tendermintService } from './tendermint.ts'
import { buildSampleData, type Init, type Versioned } from './sample-data.ts'

export interface DevNodeOptions {
  host?: string
  port?: number
  /** Height of the newest block at start. */
  startHeight?: number
  /** One new block every `blockMs` (0: the height stays put). */
  blockMs?: number
  /** Services left out entirely (not served, not in reflection): a node built without them. */
  omitServices?: string[]
  /** Methods not served although their service is (answer Unimplemented): an older binary. */
  omitMethods?: string[]
  /** Serve cosmos.reflection.v1 (true by default). */
  reflection?: boolean
  /** Answer queries this much later (a slow node: deadlines, coalescing). */
  delayMs?: number
  /** An older binary: these methods and fields are absent until `upgrade()`. */
  withhold?: Withheld
  /** State pruned below this height: pinned queries under it fail as on a pruning node. */
  earliestHeight?: number
  /** Lowest block kept (GetBlockByHeight below it fails); defaults to `earliestHeight`. */
  blockBase?: number
  /** Services beyond the ixo ones: descriptor files (replacing shipped files of the same name) and handlers. */
  modules?: { files: FileDescriptorProto[], handlers: Record<string, Handler> }
  /** Serve over TLS (PEM); with `clientCa` a client certificate signed by it is required (mTLS). */
  tls?: { key: string, cert: string, clientCa?: string }
  /** Calls without this metadata pair answer Unauthenticated (a commercial provider's API key). */
  requiredMetadata?: [string, string]
  /** Reflection hands out these instead of the files answers are encoded with: a binary built from other protos. */
  reflectedFiles?: FileDescriptorProto[]
}

export const REFLECTION_SERVICE = 'cosmos.reflection.v1.ReflectionService'
const HEIGHT_HEADER = 'x-cosmos-block-height'
const identity = (value: Buffer) => value

export interface DevNode {
  url: string
  port: number
  height: () => number
  /** Moves the tip (a lagging node catching up); blocks keep coming every `blockMs` from there. */
  setHeight: (height: number) => void
  /** Switches to the full descriptor set and serves the withheld methods, as a chain upgrade does. */
  upgrade: () => void
  /** Observed calls per gRPC path (tests assert cache and coalescing through it). */
  calls: Map<string, number>
  close: () => Promise<void>
}

function withoutServices (files: FileDescriptorProto[], omit: Set<string>): FileDescriptorProto[] {
  return files.map((file) => {
    const service = file.service.filter((s) => !omit.has(`${file.package}.${s.name}`))
    return service.length === file.service.length ? file : { ...file, service }
  })
}

function withModules (files: FileDescriptorProto[], modules: FileDescriptorProto[]): FileDescriptorProto[] {
  const names = new Set(modules.map((file) => file.name))
  return [...files.filter((file) => !names.has(file.name)), ...modules]
}

export async function startDevNode (options: DevNodeOptions = {}): Promise<DevNode> {
  const omitServices = new Set(options.omitServices ?? [])
  const omitMethods = new Set(options.omitMethods ?? [])
  if (options.reflection === false) omitServices.add(REFLECTION_SERVICE)
  const fullFiles = withoutServices(withModules(bundledDescriptorFiles(), options.modules?.files ?? []), omitServices)
  const handlers = { ...createHandlers(buildSampleData()), ...createTxHandlers(), ...options.modules?.handlers }
  let startedAt = Date.now()
  let startHeight = options.startHeight ?? 100
  const blockMs = options.blockMs ?? 5000
  const height = () => startHeight + (blockMs > 0 ? Math.floor((Date.now() - startedAt) / blockMs) : 0)
  const earliest = options.earliestHeight ?? 1
  const blockBase = options.blockBase ?? earliest
  const calls = new Map<string, number>()
  const count = (path: string) => calls.set(path, (calls.get(path) ?? 0) + 1)
  const delayMs = options.delayMs ?? 0

  function queryHeight (metadata: grpc.Metadata): number {
    const raw = metadata.get(HEIGHT_HEADER)[0]?.toString()
    const latest = height()
    if (raw === undefined || raw === '' || raw === '0') return latest
    if (!/^\d+$/.test(raw)) throw new ChainStatusError(GrpcCode.INVALID_ARGUMENT, `invalid height header "${raw}"`)
    const requested = Number(raw)
    if (requested > latest) {
      throw new ChainStatusError(
        GrpcCode.INVALID_ARGUMENT,
        'cannot query with height in the future; please provide a valid height'
      )
    }
    if (requested < earliest) {
      // baseapp wraps a registered error without a gRPC code: Unknown, as on a pruning node.
      throw new ChainStatusError(
        GrpcCode.UNKNOWN,
        `failed to load state at height ${requested}; version does not exist (latest height: ${latest})`
      )
    }
    return requested
  }

  function refuse (metadata: grpc.Metadata): ChainStatusError | undefined {
    if (options.requiredMetadata === undefined) return undefined
    const [name, value] = options.requiredMetadata
    const presented = metadata.get(name)[0]?.toString()
    return presented === value ? undefined : new ChainStatusError(GrpcCode.UNAUTHENTICATED, 'missing or wrong API key')
  }

  function unary (
    path: string,
    input: DescMessage,
    output: DescMessage,
    handler: Handler | undefined
  ): grpc.handleUnaryCall<Buffer, Buffer> {
    return (call, callback) => {
      count(path)
      const answerHeight = String(height())
      try {
        if (handler === undefined) {
          throw new ChainStatusError(
            GrpcCode.UNIMPLEMENTED,
            `unknown method ${path.split('/')[2] ?? ''} for service ${path.split('/')[1] ?? ''}`
          )
        }
        const refused = refuse(call.metadata)
        if (refused !== undefined) throw refused
        const at = queryHeight(call.metadata)
        const headers = new grpc.Metadata()
        headers.set(HEIGHT_HEADER, String(at))
        call.sendMetadata(headers)
        const visible = (records: Versioned[]) => records.filter((r) => r.height <= at).map((r) => r.value)
        const request = fromBinary(input, call.request) as unknown as Init
        const answer = Buffer.from(toBinary(output, create(output, handler(request, visible))))
        if (delayMs > 0) setTimeout(() => callback(null, answer), delayMs)
        else callback(null, answer)
      } catch (error) {
        const status =
          error instanceof ChainStatusError ? error : new ChainStatusError(GrpcCode.INTERNAL, (error as Error).message)
        const trailers = new grpc.Metadata()
        trailers.set(HEIGHT_HEADER, answerHeight)
        callback({ code: status.grpcCode, details: status.message, metadata: trailers })
      }
    }
  }

  const server = new grpc.Server()
  const blocks = tendermintService({ latest: height, base: () => blockBase }, count)
  server.addService(blocks.definition, blocks.implementation)
  let served: grpc.ServiceDefinition[] = []

  /** (Re)registers every service of `files`: a node restarted on a new binary. */
  function serve (files: FileDescriptorProto[]) {
    for (const definition of served) server.removeService(definition)
    served = []
    const registry: FileRegistry = buildRegistry(files)
    const reflectionAnswer = Buffer.from(
      toBinary(FileDescriptorSetSchema, create(FileDescriptorSetSchema, { file: options.reflectedFiles ?? files }))
    )
    for (const type of registry) {
      if (type.kind !== 'service' || omitServices.has(type.typeName)) continue
      const definition: Record<string, grpc.MethodDefinition<Buffer, Buffer>> = {}
      const implementation: grpc.UntypedServiceImplementation = {}
      for (const method of type.methods) {
        const path = `/${type.typeName}/${method.name}`
        definition[method.name] = {
          path,
          requestStream: false,
          responseStream: false,
          requestSerialize: identity,
          requestDeserialize: identity,
          responseSerialize: identity,
          responseDeserialize: identity
        }
        implementation[method.name] =
          type.typeName === REFLECTION_SERVICE
            ? (call: grpc.ServerUnaryCall<Buffer, Buffer>, callback: grpc.sendUnaryData<Buffer>) => {
                const refused = refuse(call.metadata)
                if (refused !== undefined) callback({ code: refused.grpcCode, details: refused.message })
                else callback(null, reflectionAnswer)
              }
            : unary(path, method.input, method.output, omitMethods.has(path) ? undefined : handlers[path])
      }
      if (Object.keys(definition).length === 0) continue
      server.addService(definition, implementation)
      served.push(definition)
    }
  }
  serve(options.withhold !== undefined ? olderRelease(fullFiles, options.withhold) : fullFiles)

  const host = options.host ?? '127.0.0.1'
  const port = await new Promise<number>((resolve, reject) => {
    const tls = options.tls
    const credentials = tls === undefined
      ? grpc.ServerCredentials.createInsecure()
      : grpc.ServerCredentials.createSsl(
        tls.clientCa !== undefined ? Buffer.from(tls.clientCa) : null,
        [{ private_key: Buffer.from(tls.key), cert_chain: Buffer.from(tls.cert) }],
        tls.clientCa !== undefined
      )
    server.bindAsync(`${host}:${options.port ?? 0}`, credentials, (error, bound) => {
      if (error !== null) reject(error)
      else resolve(bound)
    })
  })
  return {
    url: options.tls !== undefined ? `grpcs://${host}:${port}` : `${host}:${port}`,
    port,
    height,
    setHeight: (next: number) => {
      startHeight = next
      startedAt = Date.now()
    },
    upgrade: () => serve(fullFiles),
    calls,
    close: async () => await new Promise<void>((resolve) => {
      server.tryShutdown(() => resolve())
      // In-flight calls get a moment; then connections are cut (tests simulate a node going away).
      setTimeout(() => { server.forceShutdown(); resolve() }, 200).unref()
    })
  }
}
