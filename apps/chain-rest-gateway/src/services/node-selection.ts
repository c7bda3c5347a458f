// Unfit nodes stay at the back of the order rather than out, so a stale view never refuses a query.
export interface NodeView {
  up: boolean
  latest: number | undefined
  /** Lowest height whose state the node serves, when known. */
  earliest: number | undefined
}

export function tipOf (nodes: readonly NodeView[]): number | undefined {
  let tip: number | undefined
  for (const node of nodes) {
    if (node.up && node.latest !== undefined && (tip === undefined || node.latest > tip)) tip = node.latest
  }
  return tip
}

export function isLagging (node: NodeView, tip: number | undefined, maxLag: number): boolean {
  return tip !== undefined && node.latest !== undefined && tip - node.latest > maxLag
}

/** true: the node holds `height`; false: it does not; undefined: not known. */
export function holds (node: NodeView, height: number): boolean | undefined {
  if (node.earliest !== undefined && height < node.earliest) return false
  if (node.latest !== undefined && height > node.latest) return false
  return node.earliest !== undefined ? true : undefined
}

function rotate<T> (items: T[], turn: number): T[] {
  if (items.length < 2) return items
  const start = turn % items.length
  return [...items.slice(start), ...items.slice(0, start)]
}

/** The order to try `nodes` in for a query at `height` (undefined: latest); `turn` spreads the load. */
export function preferenceOrder<T extends NodeView> (
  nodes: readonly T[],
  height: number | undefined,
  maxLag: number,
  turn: number
): T[] {
  if (nodes.length === 1) return [nodes[0]!]
  const tip = tipOf(nodes)
  const first: T[] = []
  const second: T[] = []
  const last: T[] = []
  for (const node of nodes) {
    if (!node.up) {
      last.push(node)
    } else if (height === undefined) {
      (isLagging(node, tip, maxLag) ? second : first).push(node)
    } else {
      const held = holds(node, height)
      if (held === true) first.push(node)
      else if (held === undefined) second.push(node)
      else last.push(node)
    }
  }
  return [...rotate(first, turn), ...rotate(second, turn), ...last]
}
