import neostandard from 'neostandard'

const APPS = ['@impact/domain-api', '@impact/oracle-runtime', '@impact/ussd-gateway', '@impact/chain-rest-gateway']

export default [
  ...neostandard({ ts: true, ignores: ['**/dist/**', '**/.data/**', '**/node_modules/**', '**/coverage/**'] }),
  { rules: { '@stylistic/max-len': ['error', { code: 120, ignoreUrls: true, ignoreRegExpLiterals: true }] } },
  // A library's published code and .d.ts must not reach into an app; shared shapes live in @impact/schemas.
  // Tests may still boot the apps (as devDependencies).
  {
    files: ['libs/*/src/**'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [{
          group: [...APPS.flatMap((app) => [app, `${app}/**`]), '**/apps/**'],
          message: 'A library must not import an app: move the shared shape to @impact/schemas.'
        }]
      }]
    }
  },
  // Shipped migrations are frozen: their SQL text stays as it ran.
  {
    files: ['apps/oracle-runtime/src/db/migrations/2026_11_22_020000_order_sessions_by_activity.ts'],
    rules: { '@stylistic/max-len': 'off' }
  }
]
