import { Value } from '@sinclair/typebox/value'
import { ListProposalsQuerySchema, type ListProposalsQuery } from '@impact/schemas'
import { invalid } from '../errors.ts'

/**
 * The rules of a proposal listing's filters, for REST (whose schema checked each field already) and GraphQL
 * (whose arguments arrive as sent): fields as the REST schema says, and `voted` only with `voter`.
 */
export function checkProposalQuery (query: ListProposalsQuery): ListProposalsQuery {
  const [error] = Value.Errors(ListProposalsQuerySchema, query)
  if (error !== undefined) {
    throw invalid(`Invalid proposal filter: ${error.path.slice(1) || 'query'} ${error.message}`, [
      { field: error.path, message: error.message }
    ])
  }
  if (query.voted !== undefined && query.voter === undefined) {
    throw invalid('voted needs voter', [{ field: '/voted', message: 'only with voter' }])
  }
  return query
}
