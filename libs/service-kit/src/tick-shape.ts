import { createHook } from 'node:async_hooks'

/** The tick object kept alive; module state because the fix is per process, not per app. */
let retained: object | undefined

const noop = () => {}

/**
 * Keeps one `process.nextTick` tick object alive for the life of the process, so V8 keeps
 * `nextTick` on its fast path. Node's HTTP server calls `nextTick` about six times per request.
 *
 * Why this works: `nextTick` builds each tick object with a literal that has computed keys
 * (`{ [async_id_symbol]: …, [trigger_async_id_symbol]: …, … }`). V8 records the shape at each of
 * those keys as a weak reference and builds optimized code from it. Between requests no tick
 * object is alive, so a full garbage collection can free those intermediate shapes. The next
 * `nextTick` then finds the record cleared, marks the site megamorphic for good, and from then on
 * every tick object is built by a runtime call. In a `perf` profile of ussd-gateway that runtime
 * call took 5% of the server's CPU; `nextTick` took 1% in a server where this had not happened.
 * One full collection while no tick object is alive is enough (in ussd-gateway, whose embedded
 * database makes full collections common, half the processes got there on their first request).
 * One live tick object holds its shape, and every shape before it, alive.
 *
 * It cannot help once async ids outgrow V8's small integers (2^31 on Node's x64 builds, hours of
 * full load): the id field then changes representation and the shapes are replaced anyway.
 *
 * The only public way to reach a tick object is an `init` async hook. It is enabled for the one
 * `nextTick` below and disabled again, so it costs nothing after start-up. Idempotent.
 */
export function retainTickObjectShape (): void {
  if (retained !== undefined) return
  const hook = createHook({
    init (_asyncId, type, _triggerAsyncId, resource) {
      if (type === 'TickObject') retained ??= resource
    }
  })
  hook.enable()
  try {
    process.nextTick(noop)
  } finally {
    hook.disable()
  }
}
