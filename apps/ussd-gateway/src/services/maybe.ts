/**
 * A value, or a promise of it. The Redis stores answer in promises; the in-process ones, most menu
 * guards and the per-phone limit answer at once. Code on the hop path awaits only real promises:
 * each `await` of a plain value costs a microtask turn, and a hop took several.
 */
export type Maybe<T> = T | Promise<T>

/** True when the value is already there (no promise to wait for). */
export const ready = <T>(value: Maybe<T>): value is T => !(value instanceof Promise)

/** True when there is a promise to wait for (the guard for `void` results, which `ready` cannot narrow). */
export const pending = <T>(value: Maybe<T>): value is Promise<T> => value instanceof Promise

/** Runs `then` once `done` has settled: at once when it is no promise. */
export const after = <T>(done: Maybe<void>, then: () => T): Maybe<T> => (pending(done) ? done.then(then) : then())
