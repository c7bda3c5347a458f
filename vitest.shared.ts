/**
 * Node loads graphql 16 through `main` (CommonJS), as mercurius requires it; Vite would pick `module`
 * (.mjs) for our sources, and two copies of graphql refuse each other's schemas. For every project that
 * loads domain-api.
 */
export const graphqlAlias = [{ find: /^graphql$/, replacement: 'graphql/index.js' }]

/**
 * Hooks that boot an app on an embedded database: PGlite start-up is CPU-bound, and on a 2-core machine
 * running two suites side by side it can outlast vitest's 10 s default without anything being wrong.
 */
export const bootTimeouts = { hookTimeout: 60_000 }
