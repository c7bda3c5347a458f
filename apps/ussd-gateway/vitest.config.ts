import { defineProject } from 'vitest/config'
import { bootTimeouts, graphqlAlias, sharedWorker } from '../../vitest.shared.ts'

// The platform menus' tests boot domain-api (hence the graphql alias) and oracle-runtime on loopback.
export default defineProject({
  ssr: { resolve: { conditions: ['@impact/source'] } },
  resolve: { alias: graphqlAlias },
  test: { name: 'ussd-gateway', environment: 'node', ...sharedWorker, ...bootTimeouts }
})
