import { defineConfig } from 'vitest/config'
import projects from './vitest.workspace.ts'

// Each project (apps/*, libs/*) has its own vitest.config.ts; this root only lists them.
export default defineConfig({
  test: {
    projects,
    // A worker per core: with module graphs kept per worker (vitest.shared.ts) the main process has little to do,
    // and files that wait on a timer, a child process or a browser leave their core to the other worker.
    maxWorkers: '100%'
  }
})
