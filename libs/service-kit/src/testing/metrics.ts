/// <reference path="./prometheus-text.d.ts" />
import parsePrometheusTextFormat from 'parse-prometheus-text-format'
import { until } from './until.ts'

type Labels = Record<string, string>

export interface Scrape {
  /** The response's content type. */
  contentType: string
  /** Names of every metric family exposed. */
  names: () => string[]
  /** The family's type as exposed (`COUNTER`, `GAUGE`, `HISTOGRAM`...), undefined when absent. */
  typeOf: (name: string) => string | undefined
  /** Every label set of the family (of a histogram: of its `_count` series). */
  labelSets: (name: string) => Labels[]
  /** Sum of the values (counters, gauges) or observation counts (histograms) whose labels include `labels`. */
  value: (name: string, labels?: Labels) => number
  /** Sum of the observed values of a histogram's matching series. */
  sum: (name: string, labels?: Labels) => number
}

const matches = (have: Labels | undefined, want: Labels) =>
  Object.entries(want).every(([key, value]) => have?.[key] === value)

/** Parses Prometheus text with a third-party parser (parse-prometheus-text-format). */
export function parseScrape (text: string, contentType = ''): Scrape {
  const families = parsePrometheusTextFormat(text)
  const types = new Map(families.map((f) => [f.name, f.type]))
  // The parser folds a histogram's labelled series into one unlabelled one (its prom2json shape); read
  // untyped, each of `_bucket`, `_sum` and `_count` is a family of its own with every label set kept.
  const series = parsePrometheusTextFormat(text.replace(/^# TYPE (\S+) histogram$/gm, '# TYPE $1 untyped'))
  // Series of one family alternate (`_bucket`, `_sum`, `_count` per label set), so a name comes back repeatedly.
  const of = (name: string, labels: Labels) => series.filter((f) => f.name === name)
    .flatMap((f) => f.metrics).filter((m) => matches(m.labels, labels))
  const samples = (name: string, labels: Labels) => of(types.get(name) === 'HISTOGRAM' ? `${name}_count` : name, labels)
  const total = (list: Array<{ value?: string }>) => list.reduce((sum, m) => sum + Number(m.value ?? 0), 0)
  return {
    contentType,
    names: () => families.map((f) => f.name),
    typeOf: (name) => types.get(name),
    labelSets: (name) => samples(name, {}).map((m) => m.labels ?? {}),
    value: (name, labels = {}) => total(samples(name, labels)),
    sum: (name, labels = {}) => total(of(`${name}_sum`, labels))
  }
}

/** Scrapes a metrics URL over HTTP. */
export async function scrapeMetrics (url: string): Promise<Scrape> {
  const response = await fetch(url)
  if (response.status !== 200) throw new Error(`scrape of ${url} answered ${response.status}`)
  return parseScrape(await response.text(), response.headers.get('content-type') ?? '')
}

/**
 * Scrapes until `name` (with `labels`) reaches `atLeast`: request metrics are observed once the response
 * has gone out, which may be just after the client read it.
 */
export async function scrapeWhen (url: string, name: string, labels: Labels, atLeast: number): Promise<Scrape> {
  let scrape = await scrapeMetrics(url)
  await until(async () => {
    scrape = await scrapeMetrics(url)
    return scrape.value(name, labels) >= atLeast
  }, { timeout: 5000, interval: 20 })
  return scrape
}
