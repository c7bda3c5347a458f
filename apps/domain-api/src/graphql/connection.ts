import { encodeCursor } from '@impact/schemas'

/** Page size when `first` is not given (the REST default). */
export const DEFAULT_PAGE = 20

/** A forward-only Relay connection; every edge carries its own cursor, so a client may resume after any. */
export function connection<T> (page: { items: T[], nextCursor: string | null }, position: (node: T) => unknown[]) {
  const edges = page.items.map((node) => ({ node, cursor: encodeCursor(position(node)) }))
  return {
    edges,
    pageInfo: {
      hasNextPage: page.nextCursor !== null,
      hasPreviousPage: false,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges.at(-1)?.cursor ?? null
    }
  }
}
