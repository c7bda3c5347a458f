import { defineProject } from 'vitest/config'
import { bootTimeouts, graphqlAlias } from '../../vitest.shared.ts'

export default defineProject({
  ssr: { resolve: { conditions: ['@impact/source'] } },
  resolve: { alias: graphqlAlias },
  test: { name: 'domain-api', environment: 'node', ...bootTimeouts }
})
