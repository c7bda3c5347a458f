import type { FastifyBaseLogger, FastifyInstance } from 'fastify'

type Method = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace'
type Bindings = Parameters<FastifyBaseLogger['child']>[0]
type ChildLoggerOptions = NonNullable<Parameters<FastifyBaseLogger['child']>[1]>
/** pino loggers answer this; other loggers are treated as logging everything. */
const enabled = (logger: FastifyBaseLogger, level: string) =>
  (logger as FastifyBaseLogger & { isLevelEnabled?: (level: string) => boolean }).isLevelEnabled?.(level) ?? true

/**
 * The per-request logger, created only when the request actually logs. Fastify makes a pino child
 * for every request, and the platform's redaction rules (wildcard paths) run on its bindings each
 * time: about 5 µs, a sixth of a bare route's whole cost. Calls below the level never create it;
 * everything else behaves as the child would.
 */
export class LazyChildLogger implements FastifyBaseLogger {
  readonly #parent: FastifyBaseLogger
  readonly #bindings: Bindings
  readonly #options: ChildLoggerOptions
  #real: FastifyBaseLogger | undefined

  constructor (parent: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions) {
    this.#parent = parent
    this.#bindings = bindings
    this.#options = options
  }

  get #logger (): FastifyBaseLogger {
    this.#real ??= this.#parent.child(this.#bindings, this.#options)
    return this.#real
  }

  #call (method: Method, args: unknown[]) {
    // A route-specific level is the child's own; only the shared level can be checked without it.
    if (this.#real === undefined && this.#options.level === undefined && !enabled(this.#parent, method)) return
    ;(this.#logger[method] as (...rest: unknown[]) => void)(...args)
  }

  get level (): string { return this.#real?.level ?? this.#options.level ?? this.#parent.level }
  set level (value: string) { this.#logger.level = value }
  // Methods, not arrow-function fields: a request logger is made per request, seven closures each was waste.
  fatal (...args: unknown[]): void { this.#call('fatal', args) }
  error (...args: unknown[]): void { this.#call('error', args) }
  warn (...args: unknown[]): void { this.#call('warn', args) }
  info (...args: unknown[]): void { this.#call('info', args) }
  debug (...args: unknown[]): void { this.#call('debug', args) }
  trace (...args: unknown[]): void { this.#call('trace', args) }
  silent (): void {}
  isLevelEnabled (level: string): boolean { return enabled(this.#logger, level) }
  child (bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger { return this.#logger.child(bindings, options) }
}

/** Fastify's `childLoggerFactory`: every app built with `createApp` gets lazy request loggers. */
export function lazyChildLoggerFactory (this: FastifyInstance, logger: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions): FastifyBaseLogger {
  return new LazyChildLogger(logger, bindings, options)
}
