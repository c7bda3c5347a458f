import neostandard from 'neostandard'

export default [
  ...neostandard({ ts: true, ignores: ['**/dist/**', '**/.data/**', '**/node_modules/**', '**/coverage/**'] })
]
