import { spawn } from 'node:child_process'
import { once } from 'node:events'

export interface ServerProcess {
  /** `http://127.0.0.1:<port>` of the running server. */
  readonly url: string
  /** The exit code once the process has ended (a signal counts as -1), undefined while it runs. */
  exitCode: () => number | undefined
  /** The last 256 KB the process wrote to stdout and stderr. */
  output: () => string
  /** SIGTERM, then waits for the exit. */
  stop: () => Promise<void>
}

const KEEP_BYTES = 256 * 1024
const LISTENING = /"msg":"Server listening at (http:\/\/127\.0\.0\.1:\d+)"/

/**
 * Runs an app's real entry (`src/server.ts`) in a process of its own, as deployed, so a test sees its exit
 * on an unhandled error. Only `env` (and PATH, HOME) is passed. Resolves once it listens on a free port.
 */
export async function startServerProcess (entry: string, env: Record<string, string>): Promise<ServerProcess> {
  const child = spawn(process.execPath, ['--conditions=@impact/source', entry], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      HOST: '127.0.0.1',
      PORT: '0',
      ...env,
      LOG_LEVEL: 'info'
    },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  let output = ''
  let code: number | undefined
  const append = (chunk: Buffer) => {
    output += chunk.toString()
    if (output.length > KEEP_BYTES * 2) output = output.slice(-KEEP_BYTES)
  }
  child.stdout.on('data', append)
  child.stderr.on('data', append)
  const exited = once(child, 'exit').then(([exit]) => { code = typeof exit === 'number' ? exit : -1 })
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => { reject(new Error(`${entry} did not listen within 30 s:\n${output}`)) }, 30_000)
    const onData = () => {
      const match = LISTENING.exec(output)
      if (match?.[1] === undefined) return
      clearTimeout(timer)
      child.stdout.off('data', onData)
      resolve(match[1])
    }
    child.stdout.on('data', onData)
    exited.then(() => { clearTimeout(timer); reject(new Error(`${entry} exited (${code}):\n${output}`)) }, reject)
  })
  return {
    url,
    exitCode: () => code,
    output: () => output,
    stop: async () => {
      if (code !== undefined) return
      child.kill('SIGTERM')
      await exited
    }
  }
}
