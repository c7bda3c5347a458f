// Runs every process of the platform from its build, prefixes their logs, and stops them together.
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import { createInterface } from 'node:readline'
import { platform, type PlatformProcess } from './platform.ts'

const colours = [36, 33, 35, 32, 34, 31]
const children = new Map<string, ChildProcess>()
let stopping = false

function portOf (proc: PlatformProcess): number {
  const value = process.env[proc.portEnv]
  return value !== undefined && value !== '' ? Number(value) : proc.port
}

function start (proc: PlatformProcess, index: number) {
  if (!existsSync(proc.entry)) throw new Error(`${proc.entry} is missing: run \`npm run build\` first`)
  const { PORT: _shared, ...env } = process.env
  const child = spawn(process.execPath, [proc.entry], {
    // Children write to a pipe, so they cannot see the terminal themselves.
    env: {
      LOG_PRETTY: process.stdout.isTTY ? 'true' : 'false',
      ...env,
      ...proc.env?.(process.env),
      PORT: String(portOf(proc))
    },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  const tag = `\x1b[${colours[index % colours.length]}m[${proc.name}]\x1b[0m `
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream }).on('line', (line) => process.stdout.write(tag + line + '\n'))
  }
  child.on('exit', (code, signal) => {
    children.delete(proc.name)
    if (!stopping) {
      process.stdout.write(`${tag}exited (${signal ?? code}); stopping the platform\n`)
      stop(typeof code === 'number' && code !== 0 ? code : 1)
    } else if (children.size === 0) {
      process.exit(process.exitCode ?? 0)
    }
  })
  children.set(proc.name, child)
}

function stop (code: number) {
  if (stopping) return
  stopping = true
  process.exitCode = code
  if (children.size === 0) process.exit(code)
  for (const child of children.values()) child.kill('SIGTERM')
  setTimeout(() => {
    for (const child of children.values()) child.kill('SIGKILL')
    process.exit(code)
  }, 15_000).unref()
}

async function waitUntilUp (proc: PlatformProcess, host: string): Promise<boolean> {
  if (proc.probe === undefined) return true
  const url = `http://${host}:${portOf(proc)}${proc.probe}`
  for (let attempt = 0; attempt < 150; attempt++) {
    if (stopping) return false
    try {
      if ((await fetch(url)).ok) return true
    } catch {}
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  return false
}

process.on('SIGINT', () => stop(0))
process.on('SIGTERM', () => stop(0))

const processes = platform.filter((proc) => proc.enabled?.(process.env) ?? true)
processes.forEach(start)
const host = process.env.HOST === undefined || process.env.HOST === '0.0.0.0' ? '127.0.0.1' : process.env.HOST
const up = await Promise.all(processes.map(async (proc) => await waitUntilUp(proc, host)))
if (!stopping && up.every(Boolean)) {
  const rows = processes
    .filter((p) => p.probe !== undefined)
    .map((p) => `  ${p.name.padEnd(20)} http://${host}:${portOf(p)}  (docs: /docs)`)
  process.stdout.write(`\nPlatform is up:\n${rows.join('\n')}\nPress Ctrl+C to stop.\n\n`)
}
