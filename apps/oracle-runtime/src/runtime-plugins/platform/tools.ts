import { Type, type Static } from '@sinclair/typebox'
import { isPlatformClientError, type PlatformClient } from '@impact/platform-client'
import { DomainStatusSchema } from '@impact/schemas'
import type { ServerTool, ToolContext } from '../../services/agent/tools.ts'
import { authorisationFailure, domainResult, pageResult, serviceFailure, verificationResult } from './results.ts'

const Did = (description: string) => Type.String({ pattern: '^did:[a-z0-9]+:\\S+$', maxLength: 512, description })

const SearchSchema = Type.Object({
  mine: Type.Optional(Type.Boolean({ description: 'Only domains the user controls' })),
  type: Type.Optional(Type.String({
    minLength: 1, maxLength: 64, description: 'Entity type, e.g. Device, Project, Organisation, protocol'
  })),
  protocol: Type.Optional(Did('Only domains of this protocol (class)')),
  status: Type.Optional(DomainStatusSchema),
  controller: Type.Optional(Did('Only domains this DID controls')),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, description: 'Page size (default 10)' })),
  cursor: Type.Optional(Type.String({ maxLength: 512, description: 'nextCursor of the previous page' }))
}, { additionalProperties: false })

const DidArgSchema = Type.Object({
  did: Did('The domain\'s DID, e.g. did:ixo:entity:…')
}, { additionalProperties: false })

const registerSchema = (defaultProtocol: string | undefined) => Type.Object({
  name: Type.String({
    minLength: 1, maxLength: 200, description: 'A name people recognise, e.g. "Stove ST-12, Kisumu"'
  }),
  type: Type.Optional(Type.String({
    minLength: 1, maxLength: 64, description: 'Entity type: Device (default), Asset, Project, Organisation…'
  })),
  ...(defaultProtocol === undefined
    ? { protocol: Did('DID of the protocol (class) it belongs to; search_domains with type "protocol" lists them') }
    : { protocol: Type.Optional(Did(`DID of the protocol (class) it belongs to; default ${defaultProtocol}`)) }),
  serial: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Serial number of a device' })),
  description: Type.Optional(Type.String({ maxLength: 1000 })),
  parent: Type.Optional(Did('DID of the entity it belongs to, e.g. the project of a device'))
}, { additionalProperties: false })
type RegisterArgs = Static<ReturnType<typeof registerSchema>>

const ChainSchema = Type.Object({
  route: Type.String({
    minLength: 1,
    maxLength: 1024,
    description: 'A GET route of the chain REST gateway: /ixo/entity/{did}, /ixo/entity/{did}/verified, ' +
      '/ixo/claims/collection/{id}, /ixo/claims/claims, /ixo/claims/claim/{id}, /ixo/token/params, ' +
      '/ixo/token/metadata/{id}, /ixo/did/dids/{did}'
  }),
  query: Type.Optional(Type.Record(Type.String({ maxLength: 100 }), Type.Union([Type.String(), Type.Number()]), {
    description: 'Query parameters, e.g. { "pagination.limit": 5 }'
  })),
  height: Type.Optional(Type.Integer({ minimum: 1, description: 'Answer as of this block height' }))
}, { additionalProperties: false })

/** The call's id as domain-api's Idempotency-Key (visible ASCII, ≤ 255), so a retried call registers no twin. */
const idempotency = (toolCallId: string) =>
  /^[\x21-\x7E]{1,200}$/.test(toolCallId) ? { idempotencyKey: `oracle-tool-call:${toolCallId}` } : {}

export interface PlatformToolsOptions {
  /** The client acting as the user of a tool call (their stored delegation as proof). */
  asUser: (context: ToolContext) => Promise<PlatformClient>
  /** The client for calls that act for nobody (the chain gateway); undefined without CHAIN_REST_URL. */
  chain: PlatformClient | undefined
  oracleDid: string
  defaultProtocol: string | undefined
}

/**
 * The platform's tools. Each domain-api call acts as the user (see index.ts); a refusal or an outage
 * becomes a tool result the model can act on, and one that needs the user's authorisation also
 * prompts their client to store a fresh delegation (an `error` event of kind `delegation_required`).
 */
export function platformTools (options: PlatformToolsOptions): ServerTool[] {
  const { asUser, oracleDid, defaultProtocol } = options

  async function run <T> (context: ToolContext, call: () => Promise<T>): Promise<T> {
    try {
      return await call()
    } catch (error) {
      if (!isPlatformClientError(error)) throw error
      if (!error.authorisationRequired) throw serviceFailure(error)
      const failure = authorisationFailure(error, oracleDid)
      context.emit('error', {
        error: `Authorise the oracle for ${error.ability ?? 'domain/*'} to let it act for you on the platform`,
        kind: 'delegation_required',
        source: 'platform',
        status: 403,
        retryable: true,
        detail: { ability: error.ability, reason: error.reason ?? error.code, oracleDid },
        sessionId: context.sessionId,
        requestId: context.requestId,
        timestamp: new Date().toISOString()
      })
      throw failure
    }
  }

  const tools: ServerTool[] = [
    {
      name: 'search_domains',
      description: 'Lists domains (registered entities: devices such as cooking stoves, projects, organisations, ' +
        'protocols) in the platform registry, newest first, with status and whether each is verified and usable. ' +
        'Use mine=true for the user\'s own.',
      parameters: SearchSchema,
      async execute (args: Static<typeof SearchSchema>, context) {
        const { mine, ...query } = args
        return await run(context, async () => {
          const client = await asUser(context)
          const page = await client.searchDomains({
            limit: 10, ...query, ...(mine === true ? { controller: context.did } : {})
          }, { signal: context.signal })
          return pageResult(page)
        })
      }
    },
    {
      name: 'get_domain',
      description: 'One domain of the platform registry by DID: its status (draft, verification_submitted, ' +
        'verified, rejected, expired, deactivated), whether it is verified and usable now, its controllers, ' +
        'protocol, links and open verification.',
      parameters: DidArgSchema,
      async execute (args: Static<typeof DidArgSchema>, context) {
        return await run(context, async () =>
          domainResult(await (await asUser(context)).getDomain(args.did, { signal: context.signal }), context.did))
      }
    },
    {
      name: 'get_verification',
      description: 'Where a domain\'s verification stands: its latest governance proposal with the tally ' +
        '(yes, no, abstain), quorum, threshold, deadline and votes, or null when none was proposed.',
      parameters: DidArgSchema,
      async execute (args: Static<typeof DidArgSchema>, context) {
        return await run(context, async () => verificationResult(
          await (await asUser(context)).getVerification(args.did, { signal: context.signal })))
      }
    },
    {
      name: 'register_domain',
      description: 'Registers a new domain (e.g. a household\'s cooking stove) in the platform registry in the ' +
        'user\'s name: they become its controller, and it starts as a draft, not yet verified. The user is asked ' +
        'to approve first.',
      parameters: registerSchema(defaultProtocol),
      sideEffects: true,
      summarize: (args: RegisterArgs) => {
        const serial = args.serial !== undefined ? ` (serial ${args.serial})` : ''
        const protocol = args.protocol ?? defaultProtocol ?? 'no protocol'
        return `Register the ${args.type ?? 'Device'} "${args.name}"${serial} in the platform registry in your ` +
          `name, under the protocol ${protocol}. This oracle does it for you with the authorisation you gave it.`
      },
      // Before the approval request: a user who has not authorised registering is prompted to, not asked to approve.
      async precheck (_args: RegisterArgs, context) {
        await run(context, async () => { await (await asUser(context)).assertAuthorised('domain/create') })
      },
      async execute (args: RegisterArgs, context) {
        const metadata = {
          name: args.name,
          ...(args.serial !== undefined ? { serial: args.serial } : {}),
          ...(args.description !== undefined ? { description: args.description } : {})
        }
        return await run(context, async () => {
          const domain = await (await asUser(context)).registerDomain({
            type: args.type ?? 'Device',
            class: args.protocol ?? defaultProtocol as string,
            metadata,
            ...(args.parent !== undefined ? { links: { parent: args.parent } } : {})
          }, { signal: context.signal, ...idempotency(context.toolCallId) })
          return { registered: true, ...domainResult(domain, context.did) }
        })
      }
    }
  ]
  const { chain } = options
  if (chain !== undefined) {
    tools.push({
      name: 'query_chain',
      description: 'Reads the blockchain through its REST gateway: an entity and whether it is verified ' +
        '(/ixo/entity/{did}), claim collections and claims (/ixo/claims/…), tokens (/ixo/token/…). Answers ' +
        'the chain\'s JSON as is.',
      parameters: ChainSchema,
      async execute (args: Static<typeof ChainSchema>, context) {
        return await run(context, async () => await chain.queryChain(args.route, {
          signal: context.signal, query: args.query, height: args.height
        }))
      }
    })
  }
  return tools
}
