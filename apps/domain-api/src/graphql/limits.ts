import { getNamedType, isLeafType, type DocumentNode, type GraphQLSchema } from 'graphql'
import { getComplexity, type ComplexityEstimator } from 'graphql-query-complexity'
import { DomainGraphqlInvalidError, DomainGraphqlTooComplexError } from '../errors.ts'
import { DEFAULT_PAGE } from './connection.ts'

/** Largest page a `first` argument may ask for (the REST `limit` bound). */
export const MAX_PAGE = 100

/** Objects a query can return: one per object field, a page's selection `first` times; scalars are free (rows cost). */
const objectsEstimator: ComplexityEstimator = ({ field, args, childComplexity }) => {
  const own = isLeafType(getNamedType(field.type)) ? 0 : 1
  if (!field.args.some((arg) => arg.name === 'first')) return own + childComplexity
  // An explicit null takes the default page size, as the resolvers do.
  const first = typeof args.first === 'number' ? args.first : DEFAULT_PAGE
  if (first < 1) throw new DomainGraphqlInvalidError(`first must be between 1 and ${MAX_PAGE} (${field.name})`)
  if (first > MAX_PAGE) throw new DomainGraphqlTooComplexError(`first may be at most ${MAX_PAGE} (${field.name})`)
  return own + first * childComplexity
}

/** Refuses a query over `maxCost` before anything is read; every operation of the document counts (the safe side). */
export function checkQueryCost (
  schema: GraphQLSchema,
  document: DocumentNode,
  variables: Record<string, unknown> | undefined,
  maxCost: number
): number {
  let cost: number
  try {
    cost = getComplexity({ schema, query: document, variables: variables ?? {}, estimators: [objectsEstimator] })
  } catch (error) {
    if ((error as { code?: string }).code?.startsWith('DOMAIN_') === true) throw error
    throw new DomainGraphqlInvalidError((error as Error).message)
  }
  if (cost > maxCost) {
    throw new DomainGraphqlTooComplexError(`The query may return ${cost} objects, more than the limit of ${maxCost}; ` +
      'ask for smaller pages or fewer nested lists')
  }
  return cost
}
