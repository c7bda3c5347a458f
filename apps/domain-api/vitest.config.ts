import { defineProject } from 'vitest/config'

export default defineProject({
  ssr: { resolve: { conditions: ['@impact/source'] } },
  resolve: {
    // Node loads graphql 16 through `main` (CommonJS), as mercurius requires it; Vite would pick
    // `module` (.mjs) for our sources, and two copies of graphql refuse each other's schemas.
    alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }]
  },
  test: { name: 'domain-api', environment: 'node' }
})
