import type { SharedState } from '@impact/shared-state'

/** The shared state as one process sees it; `sever()` is that process dying: it sends nothing more. */
export function severable (state: SharedState) {
  let dead = false
  const view = new Proxy(state, {
    get (target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown
      if (typeof value !== 'function' || prop === 'close') return value
      return async (...args: unknown[]) => {
        if (dead) throw new Error('this process is gone')
        return await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args)
      }
    }
  })
  return { view, sever: () => { dead = true } }
}
