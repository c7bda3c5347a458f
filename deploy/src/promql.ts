import { parser } from '@prometheus-io/lezer-promql'

/** Grafana's variables, replaced by a value of their kind so a panel's query parses as PromQL. */
const GRAFANA_VARIABLES: Array<[RegExp, string]> = [[/\$__rate_interval|\$__interval|\$__range/g, '5m']]

export interface ParsedQuery {
  /** Metric names the query selects (`name{…}` and `{__name__="…"}` are both read). */
  metrics: string[]
  /** False when Prometheus's own grammar (lezer-promql) finds a syntax error. */
  valid: boolean
}

/** Parses a PromQL expression (Grafana variables allowed) with the Prometheus project's grammar. */
export function parsePromql (expression: string): ParsedQuery {
  const source = GRAFANA_VARIABLES.reduce((text, [pattern, value]) => text.replace(pattern, value), expression)
  const metrics = new Set<string>()
  let valid = true
  parser.parse(source).iterate({
    enter: (node) => {
      if (node.type.isError) valid = false
      if (node.name === 'Identifier' && node.node.parent?.name === 'VectorSelector') {
        metrics.add(source.slice(node.from, node.to))
      }
    }
  })
  return { metrics: [...metrics], valid }
}
