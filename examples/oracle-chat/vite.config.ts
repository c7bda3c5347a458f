import { defaultClientConditions, defineConfig } from 'vite'

/**
 * The example page. Workspace libraries are compiled from their TypeScript sources (the
 * `@impact/source` export condition), so no library build is needed first.
 * `VITE_ORACLE_URL` (default http://127.0.0.1:3002) is the oracle runtime the page talks to;
 * `?oracle=<url>` overrides it at run time.
 */
export default defineConfig({
  root: import.meta.dirname,
  base: './',
  resolve: { conditions: ['@impact/source', ...defaultClientConditions] },
  build: { target: 'es2022', outDir: 'dist', emptyOutDir: true, sourcemap: true },
  server: { host: '127.0.0.1', port: 5173 },
  preview: { host: '127.0.0.1', port: 4173 }
})
