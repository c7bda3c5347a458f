/**
 * Node loads graphql 16 through `main` (CommonJS), as mercurius requires it; Vite would pick `module`
 * (.mjs) for our sources, and two copies of graphql refuse each other's schemas. For every project that
 * loads domain-api.
 */
export const graphqlAlias = [{ find: /^graphql$/, replacement: 'graphql/index.js' }]

/**
 * Tests and hooks that boot an app on an embedded database: PGlite start-up is CPU-bound, and on a 2-core machine
 * running two suites side by side it can outlast vitest's defaults (5 s a test, 10 s a hook) without anything
 * being wrong.
 */
export const bootTimeouts = { hookTimeout: 60_000, testTimeout: 30_000 }

/**
 * Every project: a worker runs its files one after another in one module graph, so the apps, the libraries and
 * PGlite's WASM load once per worker rather than once per file, which halves the suite's CPU time. Files share
 * nothing else: each builds its own apps, databases and key prefixes, and restores what it fakes or stubs.
 * A worker per core (vitest leaves one to its main process, which then has little to do); a project's own
 * setting, as projects do not inherit the root's, and it must be the same in all of them.
 */
export const sharedWorker = { isolate: false, maxWorkers: '100%' }
