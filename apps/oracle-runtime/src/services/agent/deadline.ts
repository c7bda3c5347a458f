export type Settled<T> = { value: T } | 'timeout' | 'aborted'

/**
 * Runs `work` until it settles, its deadline passes or `signal` fires, whichever comes first. The
 * work gets a signal that fires in both cases; work that ignores it is left behind (its late result
 * or failure is dropped), never waited for. A failure of the work rejects.
 */
export async function withinDeadline<T> (
  work: (signal: AbortSignal) => Promise<T>, timeoutMs: number, signal?: AbortSignal
): Promise<Settled<T>> {
  const deadline = new AbortController()
  let timer: NodeJS.Timeout | undefined
  let onAbort: (() => void) | undefined
  const stopped = new Promise<'timeout' | 'aborted'>((resolve) => {
    timer = setTimeout(() => { deadline.abort(new Error('deadline passed')); resolve('timeout') }, timeoutMs)
    onAbort = () => { resolve('aborted') }
    if (signal?.aborted === true) onAbort()
    else signal?.addEventListener('abort', onAbort, { once: true })
  })
  const combined = signal !== undefined ? AbortSignal.any([signal, deadline.signal]) : deadline.signal
  const running = (async () => await work(combined))()
  running.catch(() => {})
  try {
    return await Promise.race([running.then((value) => ({ value })), stopped])
  } finally {
    clearTimeout(timer)
    if (onAbort !== undefined) signal?.removeEventListener('abort', onAbort)
  }
}
