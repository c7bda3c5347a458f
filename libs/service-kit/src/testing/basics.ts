import { expect, it } from 'vitest'
import type { App } from '../create-app.ts'

export interface ServiceBasicsOptions {
  /** The app name the landing record announces (`<name> is running`). */
  name: string
  /** The OpenAPI title. */
  title: string
  /** The app under test, built by the caller's `beforeAll` (each app needs its own set-up). */
  app: () => App
  /** Dependency statuses `/health` must report, e.g. `{ database: 'connected' }`. */
  health: Record<string, string>
}

/**
 * The contract every app of the platform keeps, as tests to call inside an app's `describe`:
 * the landing record, `/health` with its dependency checks, and the OpenAPI UI and document.
 * For the workspace's own test suites (vitest is the monorepo's dev dependency), never for runtime code.
 */
export function itServesTheBasics ({ name, title, app, health }: ServiceBasicsOptions): void {
  it('answers GET / with the landing record', async () => {
    const res = await app().inject({ method: 'GET', url: '/' })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toMatchObject({ status: 'ok', message: `${name} is running`, environment: 'test' })
  })

  it('reports health with live dependency checks', async () => {
    const res = await app().inject({ method: 'GET', url: '/health' })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toMatchObject({ status: 'ok', ...health })
    expect(Date.parse(res.json().timestamp)).not.toBeNaN()
  })

  it('serves the OpenAPI UI and document at /docs', async () => {
    const ui = await app().inject({ method: 'GET', url: '/docs' })
    expect([200, 302]).toContain(ui.statusCode)
    const spec = await app().inject({ method: 'GET', url: '/docs/json' })
    expect(spec.statusCode).toBe(200)
    expect(spec.json()).toMatchObject({ openapi: '3.1.0', info: { title } })
    expect(Object.keys(spec.json().paths)).toContain('/health')
  })
}
