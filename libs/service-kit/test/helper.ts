import { createApp, type CreateAppOptions } from '../src/index.ts'

export const testAppOptions = (overrides: Partial<CreateAppOptions> = {}): CreateAppOptions => ({
  config: { NODE_ENV: 'test', LOG_LEVEL: 'silent', TRUST_PROXY_ENABLED: false },
  docs: { title: 'Kit test', version: '1.0.0' },
  ...overrides
})

export const buildTestApp = async (overrides: Partial<CreateAppOptions> = {}) =>
  await createApp(testAppOptions(overrides))
