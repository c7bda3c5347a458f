import { runServer } from '@impact/service-kit'
import { buildApp } from './app.ts'
import { loadConfig } from './config.ts'

await runServer({ loadConfig: () => loadConfig(), buildApp })
