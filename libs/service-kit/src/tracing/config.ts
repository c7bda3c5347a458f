import { Type } from '@sinclair/typebox'

/** The tracing keys of every app's config schema (spread into `baseConfigProperties`). */
export const tracingConfigProperties = () => ({
  OTEL_EXPORTER_OTLP_ENDPOINT: Type.Optional(Type.String({
    format: 'uri',
    pattern: '^https?://',
    maxLength: 2048,
    description: 'OpenTelemetry collector (OTLP/HTTP, JSON): spans go to <endpoint>/v1/traces. Unset: tracing is ' +
      'off and costs nothing. The exporter reads OTEL_EXPORTER_OTLP_HEADERS and the certificate variables itself'
  })),
  OTEL_TRACES_SAMPLER_ARG: Type.Number({
    minimum: 0,
    maximum: 1,
    default: 1,
    description: 'Share of new traces recorded (0–1); a caller\'s sampled flag in traceparent is followed'
  }),
  OTEL_BSP_SCHEDULE_DELAY: Type.Integer({
    minimum: 1,
    maximum: 600_000,
    default: 5000,
    description: 'Milliseconds between two span exports (spans are sent in batches)'
  })
})

export interface TracingConfig {
  OTEL_EXPORTER_OTLP_ENDPOINT?: string | undefined
  OTEL_TRACES_SAMPLER_ARG?: number
  OTEL_BSP_SCHEDULE_DELAY?: number
}
