import { Histogram, type Registry } from 'prom-client'

/** The fields of a Kysely log event read here (Kysely's `log` option calls it after every query). */
interface QueryEvent { level: 'query' | 'error', queryDurationMillis: number }

/** A Kysely `log` function timing every query by outcome (`db_query_duration_seconds`). */
export function queryTimer (registry: Registry): (event: QueryEvent) => void {
  const duration = new Histogram({
    name: 'db_query_duration_seconds',
    help: 'Database query time by outcome (ok or error)',
    labelNames: ['outcome'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry]
  })
  return (event) => {
    duration.observe({ outcome: event.level === 'query' ? 'ok' : 'error' }, event.queryDurationMillis / 1000)
  }
}
