/**
 * Node loads graphql 16 through `main` (CommonJS), as mercurius requires it; Vite would pick `module`
 * (.mjs) for our sources, and two copies of graphql refuse each other's schemas. For every project that
 * loads domain-api.
 */
export const graphqlAlias = [{ find: /^graphql$/, replacement: 'graphql/index.js' }]
