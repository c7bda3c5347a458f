// The list of test projects. Vitest no longer reads this file by itself (workspace files were
// removed in vitest 4), so the root vitest.config.ts imports it into `test.projects`.
export default ['libs/*', 'apps/*', 'deploy', 'examples/*']
