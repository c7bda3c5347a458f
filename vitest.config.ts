import { defineConfig } from 'vitest/config'
import projects from './vitest.workspace.ts'

// Each project (apps/*, libs/*) has its own vitest.config.ts; this root only lists them.
export default defineConfig({
  test: { projects }
})
