// A JSON client of domain-api's HTTP API with API keys, for scripts and other packages' tests.

/** An answer other than 2xx; the message names the error body's code, never the credentials sent. */
export class DomainApiCallError extends Error {
  readonly status: number
  readonly code: string | undefined

  constructor (method: string, path: string, status: number, text: string) {
    let code: string | undefined
    let detail = text.slice(0, 300)
    try {
      const error = JSON.parse(text) as { code?: string, message?: string }
      code = error.code
      detail = [error.code, error.message].filter(Boolean).join(': ')
    } catch {}
    super(`${method} ${path} answered ${status}${detail !== '' ? ` (${detail})` : ''}`)
    this.name = 'DomainApiCallError'
    this.status = status
    this.code = code
  }
}

export type DomainApiCall = <T = any>(method: string, path: string, key: string, body?: unknown) => Promise<T>

export function apiKeyClient (baseUrl: string, fetchImpl: typeof fetch = globalThis.fetch): DomainApiCall {
  const base = baseUrl.replace(/\/+$/, '')
  return async <T = any>(method: string, path: string, key: string, body?: unknown): Promise<T> => {
    const res = await fetchImpl(`${base}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {})
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {})
    })
    const text = await res.text()
    if (!res.ok) throw new DomainApiCallError(method, path, res.status, text)
    return (text === '' ? undefined : JSON.parse(text)) as T
  }
}
