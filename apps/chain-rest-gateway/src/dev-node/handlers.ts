/**
 * DEVELOPMENT FIXTURE: the ixo entity, iid, claims and token query methods over sample data,
 * answering with the status codes and messages the chain's keepers use (NotFound for entities and
 * DIDs, Unknown for missing claims records and tokens, InvalidArgument for empty ids).
 */
import { ChainStatusError, GrpcCode } from '../errors.ts'
import { paginate, type PageRequest } from './pagination.ts'
import type { Init, SampleData, Versioned } from './sample-data.ts'

export type Handler = (request: Init, at: (records: Versioned[]) => Init[]) => Init

const invalid = (message: string) => new ChainStatusError(GrpcCode.INVALID_ARGUMENT, message)
const notFound = (message: string) => new ChainStatusError(GrpcCode.NOT_FOUND, message)
/** Registered SDK errors without a gRPC code reach clients as Unknown (HTTP 500), as on the chain. */
const unknown = (message: string) => new ChainStatusError(GrpcCode.UNKNOWN, message)

const page = (request: Init) => request.pagination as PageRequest | undefined
const required = (value: unknown, message: string) => {
  if (typeof value !== 'string' || value === '') throw invalid(message)
  return value
}

export function createHandlers (data: SampleData): Record<string, Handler> {
  const find = (records: Init[], match: (r: Init) => boolean) => records.find(match)

  const entity = (at: (r: Versioned[]) => Init[], id: string) => {
    const found = find(at(data.entities), (e) => e.id === id)
    if (found === undefined) throw notFound('entity not found')
    return found
  }
  const didDocument = (at: (r: Versioned[]) => Init[], id: string) => {
    const found = find(at(data.iidDocuments), (d) => d.id === id)
    if (found === undefined) throw notFound('did document not found')
    return found
  }
  const claimsRecord = (records: Init[], match: (r: Init) => boolean, what: string, id: string) => {
    const found = find(records, match)
    if (found === undefined) throw unknown(`${what} not found: for id ${id}`)
    return found
  }
  const list = <K extends string>(records: Init[], key: (r: Init) => string, request: Init, field: K) => {
    const { items, pagination } = paginate(records, key, page(request))
    return { [field]: items, pagination }
  }

  return {
    '/ixo.entity.v1beta1.Query/Params': () => ({ params: data.params.entity }),
    '/ixo.entity.v1beta1.Query/Entity': (req, at) => {
      const id = required(req.id, 'invalid request')
      const iidDocument = didDocument(at, id)
      return { entity: entity(at, id), iidDocument }
    },
    '/ixo.entity.v1beta1.Query/EntityMetaData': (req, at) => ({
      entity: entity(at, required(req.id, 'invalid request'))
    }),
    '/ixo.entity.v1beta1.Query/EntityIidDocument': (req, at) => ({
      iidDocument: didDocument(at, required(req.id, 'invalid request'))
    }),
    '/ixo.entity.v1beta1.Query/EntityVerified': (req, at) => ({
      entityVerified: entity(at, required(req.id, 'invalid request')).entityVerified
    }),
    '/ixo.entity.v1beta1.Query/EntityList': (req, at) =>
      list(at(data.entities), (e) => e.id as string, req, 'entities'),

    '/ixo.iid.v1beta1.Query/IidDocuments': (req, at) =>
      list(at(data.iidDocuments), (d) => d.id as string, req, 'iidDocuments'),
    '/ixo.iid.v1beta1.Query/IidDocument': (req, at) => ({
      iidDocument: didDocument(at, required(req.id, 'iid Doc id cannot be empty'))
    }),

    '/ixo.claims.v1beta1.Query/Params': () => ({ params: data.params.claims }),
    '/ixo.claims.v1beta1.Query/Collection': (req, at) => {
      const id = required(req.id, 'invalid request')
      return { collection: claimsRecord(at(data.collections), (c) => c.id === id, 'collection', id) }
    },
    '/ixo.claims.v1beta1.Query/CollectionList': (req, at) =>
      list(at(data.collections), (c) => (c.id as string).padStart(20, '0'), req, 'collections'),
    '/ixo.claims.v1beta1.Query/Claim': (req, at) => {
      const id = required(req.id, 'invalid request')
      return { claim: claimsRecord(at(data.claims), (c) => c.claimId === id, 'claim', id) }
    },
    '/ixo.claims.v1beta1.Query/ClaimList': (req, at) =>
      list(at(data.claims), (c) => c.claimId as string, req, 'claims'),
    '/ixo.claims.v1beta1.Query/Dispute': (req, at) => {
      const proof = required(req.proof, 'invalid request')
      return { dispute: claimsRecord(at(data.disputes), (d) => (d.data as Init).proof === proof, 'dispute', proof) }
    },
    '/ixo.claims.v1beta1.Query/DisputeList': (req, at) =>
      list(at(data.disputes), (d) => (d.data as Init).proof as string, req, 'disputes'),
    '/ixo.claims.v1beta1.Query/Intent': (req, at) => {
      const id = required(req.id, 'invalid request')
      const match = (i: Init) =>
        i.id === id && i.agentAddress === req.agentAddress && i.collectionId === req.collectionId
      return { intent: claimsRecord(at(data.intents), match, 'intent', id) }
    },
    '/ixo.claims.v1beta1.Query/IntentList': (req, at) => list(at(data.intents), (i) => i.id as string, req, 'intents'),
    '/ixo.claims.v1beta1.Query/CollectionMember': (req, at) => {
      const collectionId = required(req.collectionId, 'invalid request')
      const match = (m: Init) => m.collectionId === collectionId && m.memberAddress === req.memberAddress
      return {
        memberBudget: claimsRecord(
          at(data.memberBudgets),
          match,
          'member budget',
          `${collectionId}/${String(req.memberAddress)}`
        )
      }
    },
    '/ixo.claims.v1beta1.Query/CollectionMemberList': (req, at) => {
      const collectionId = required(req.collectionId, 'invalid request')
      return list(
        at(data.memberBudgets).filter((m) => m.collectionId === collectionId),
        (m) => m.memberAddress as string,
        req,
        'memberBudgets'
      )
    },
    '/ixo.claims.v1beta1.Query/DisputeBySubject': (req, at) => {
      const subjectId = required(req.subjectId, 'invalid request')
      const match = (d: Init) => d.subjectId === subjectId && d.targetRole === req.targetRole
      return { dispute: claimsRecord(at(data.disputes), match, 'dispute', subjectId) }
    },
    '/ixo.claims.v1beta1.Query/DisputeListForSubject': (req, at) => {
      const subjectId = required(req.subjectId, 'invalid request')
      return { disputes: at(data.disputes).filter((d) => d.subjectId === subjectId) }
    },
    '/ixo.claims.v1beta1.Query/AgentDepositBalance': (req, at) => {
      const collectionId = required(req.collectionId, 'invalid request')
      const match = (b: Init) => b.collectionId === collectionId && b.agentAddress === req.agentAddress
      return {
        balance: claimsRecord(
          at(data.deposits),
          match,
          'agent deposit balance',
          `${collectionId}/${String(req.agentAddress)}`
        )
      }
    },
    '/ixo.claims.v1beta1.Query/AgentDepositBalanceList': (req, at) => {
      const collectionId = required(req.collectionId, 'invalid request')
      return list(
        at(data.deposits).filter((b) => b.collectionId === collectionId),
        (b) => b.agentAddress as string,
        req,
        'balances'
      )
    },

    '/ixo.token.v1beta1.Query/Params': () => ({ params: data.params.token }),
    '/ixo.token.v1beta1.Query/TokenMetadata': (req) => {
      const id = required(req.id, 'invalid request')
      const metadata = data.tokenMetadata[id]
      if (metadata === undefined) throw unknown(`token not found: for id ${id}`)
      return metadata
    },
    '/ixo.token.v1beta1.Query/TokenList': (req, at) => {
      const minter = required(req.minter, 'invalid request')
      return list(
        at(data.tokens).filter((t) => t.minter === minter),
        (t) => t.contractAddress as string,
        req,
        'tokenDocs'
      )
    },
    '/ixo.token.v1beta1.Query/TokenDoc': (req, at) => {
      const minter = required(req.minter, 'invalid request')
      const match = (t: Init) => t.minter === minter && t.contractAddress === req.contractAddress
      return { tokenDoc: claimsRecord(at(data.tokens), match, 'token', String(req.contractAddress)) }
    }
  }
}
