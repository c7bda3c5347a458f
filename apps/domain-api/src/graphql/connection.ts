import { encodeCursor } from '@impact/schemas'

/** Page size when `first` is not given (the REST default). */
export const DEFAULT_PAGE = 20

/**
 * A Relay connection from a service page: every edge carries the cursor of its own position, so
 * a client may resume after any of them. Pages go forward only, so there is never a previous one.
 */
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
