// Runs every process of the platform from its build, prefixes their logs, and stops them together.
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import { createInterface } from 'node:readline'
import {
  baseUrl, dataDirOf, devUssdProgrammesFile, enabledProcesses, processEnv, programmeFile, seedSkipReason,
  type PlatformProcess
} from './platform.ts'
import { prepareUssdProgrammes, seedAdminKey, seedProgramme } from './seed.ts'

const colours = [36, 33, 35, 32, 34, 31]
const children = new Map<string, ChildProcess>()
let stopping = false

function start (proc: PlatformProcess, index: number) {
  if (!existsSync(proc.entry)) throw new Error(`${proc.entry} is missing: run \`npm run build\` first`)
  const child = spawn(process.execPath, [proc.entry], {
    // Children write to a pipe, so they cannot see the terminal themselves.
    env: processEnv(proc, process.env, { pretty: process.stdout.isTTY }),
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

async function waitUntilUp (proc: PlatformProcess): Promise<boolean> {
  if (proc.probe === undefined) return true
  const url = `${baseUrl(proc, process.env)}${proc.probe}`
  for (let attempt = 0; attempt < 150; attempt++) {
    if (stopping) return false
    try {
      if ((await fetch(url)).ok) return true
    } catch {}
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  return false
}

/** The DID an app announces on `GET /` (domain-api `did`, oracle-runtime `oracleDid`), if any. */
async function announcedDid (proc: PlatformProcess): Promise<string> {
  try {
    const landing = await (await fetch(`${baseUrl(proc, process.env)}/`)).json() as Record<string, unknown>
    const did = landing.did ?? landing.oracleDid
    return typeof did === 'string' ? did : ''
  } catch {
    return ''
  }
}

/** The development seed, once domain-api answers; a failure is reported and leaves the platform running. */
async function seed (): Promise<void> {
  const tag = '\x1b[1m[seed]\x1b[0m '
  const skip = seedSkipReason(process.env)
  const domainApi = processes.find((proc) => proc.name === 'domain-api')
  if (skip !== undefined || domainApi === undefined) {
    process.stdout.write(`${tag}skipped (${skip ?? 'domain-api is not running'})\n`)
    return
  }
  try {
    await seedProgramme({
      domainApiUrl: baseUrl(domainApi, process.env),
      adminKey: await seedAdminKey(process.env, dataDirOf('domain-api', process.env)),
      programmeFile: programmeFile(process.env),
      ussdProgrammesFile: devUssdProgrammesFile(process.env),
      nodeEnv: process.env.NODE_ENV,
      log: (line) => process.stdout.write(`${tag}${line}\n`)
    })
  } catch (error) {
    process.stdout.write(`${tag}failed: ${(error as Error).message} (the apps keep running; SEED=false skips it)\n`)
  }
}

process.on('SIGINT', () => stop(0))
process.on('SIGTERM', () => stop(0))

const processes = enabledProcesses(process.env)
// The gateway refuses a programme file that is not there: the seed's, until the seed rewrites it.
const ussdProgrammes = devUssdProgrammesFile(process.env)
if (ussdProgrammes !== undefined) await prepareUssdProgrammes(ussdProgrammes, programmeFile(process.env))
processes.forEach(start)
const up = await Promise.all(processes.map(waitUntilUp))
if (!stopping && up.every(Boolean)) {
  await seed()
  const rows = await Promise.all(processes
    .filter((p) => p.probe !== undefined)
    .map(async (p) => `  ${p.name.padEnd(20)} ${baseUrl(p, process.env).padEnd(24)} ${await announcedDid(p)}`))
  process.stdout.write(`\nPlatform is up (docs at /docs of each):\n${rows.join('\n')}\nPress Ctrl+C to stop.\n\n`)
}
