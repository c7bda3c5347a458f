import type { FastifyBaseLogger, FastifyInstance, FastifyLogFn } from 'fastify'

type Method = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace'
type Bindings = Parameters<FastifyBaseLogger['child']>[0]
type ChildLoggerOptions = NonNullable<Parameters<FastifyBaseLogger['child']>[1]>
type LogFn = FastifyLogFn
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
  fatal: LogFn = (...args: unknown[]) => this.#call('fatal', args)
  error: LogFn = (...args: unknown[]) => this.#call('error', args)
  warn: LogFn = (...args: unknown[]) => this.#call('warn', args)
  info: LogFn = (...args: unknown[]) => this.#call('info', args)
  debug: LogFn = (...args: unknown[]) => this.#call('debug', args)
  trace: LogFn = (...args: unknown[]) => this.#call('trace', args)
  silent: LogFn = () => {}
  isLevelEnabled (level: string): boolean { return enabled(this.#logger, level) }
  child (bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger { return this.#logger.child(bindings, options) }
}

/** Fastify's `childLoggerFactory`: every app built with `createApp` gets lazy request loggers. */
export function lazyChildLoggerFactory (this: FastifyInstance, logger: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions): FastifyBaseLogger {
  return new LazyChildLogger(logger, bindings, options)
}
