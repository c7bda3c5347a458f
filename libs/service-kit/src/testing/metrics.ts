/// <reference path="./prometheus-text.d.ts" />
import parsePrometheusTextFormat from 'parse-prometheus-text-format'
import { until } from './until.ts'

type Labels = Record<string, string>

export interface Scrape {
  contentType: string
  names: () => string[]
  typeOf: (name: string) => string | undefined
  /** Every label set of the family (of a histogram: of its `_count` series). */
  labelSets: (name: string) => Labels[]
  /** Sum of the values (counters, gauges) or observation counts (histograms) whose labels include `labels`. */
  value: (name: string, labels?: Labels) => number
  sum: (name: string, labels?: Labels) => number
}

const matches = (have: Labels | undefined, want: Labels) =>
  Object.entries(want).every(([key, value]) => have?.[key] === value)

export function parseScrape (text: string, contentType = ''): Scrape {
  const families = parsePrometheusTextFormat(text)
  const types = new Map(families.map((f) => [f.name, f.type]))
  // The parser folds a histogram's labelled series into one; read untyped, each label set is kept.
  const series = parsePrometheusTextFormat(text.replace(/^# TYPE (\S+) histogram$/gm, '# TYPE $1 untyped'))
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

export async function scrapeMetrics (url: string): Promise<Scrape> {
  const response = await fetch(url)
  if (response.status !== 200) throw new Error(`scrape of ${url} answered ${response.status}`)
  return parseScrape(await response.text(), response.headers.get('content-type') ?? '')
}

/** Request metrics are observed once the response has gone out, which may be just after the client read it. */
export async function scrapeWhen (url: string, name: string, labels: Labels, atLeast: number): Promise<Scrape> {
  let scrape = await scrapeMetrics(url)
  await until(async () => {
    scrape = await scrapeMetrics(url)
    return scrape.value(name, labels) >= atLeast
  }, { timeout: 5000, interval: 20 })
  return scrape
}
