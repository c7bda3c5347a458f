import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { availableParallelism } from 'node:os'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('../../', import.meta.url))
const children: ChildProcess[] = []

function hasTaskset (): boolean {
  try {
    execFileSync('taskset', ['-p', String(process.pid)], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}

/**
 * CPU placement as in a deployment, where the chain node, the gateway and the clients do not
 * share a CPU: the load generator (this process) on CPU 0, servers and the node on the others.
 * With two CPUs the transcoding gateway shares CPU 0 with the load generator (the node keeps
 * CPU 1) and the cached gateway and bare route take CPU 1 (the node is idle then).
 */
export const cpus = (() => {
  const count = availableParallelism()
  const pin = count >= 2 && hasTaskset()
  if (pin) execFileSync('taskset', ['-cp', '0', String(process.pid)], { stdio: 'ignore' })
  return {
    pinned: pin,
    node: pin ? String(count - 1) : undefined,
    transcodingGateway: pin ? (count >= 3 ? '1' : '0') : undefined,
    server: pin ? '1' : undefined,
    describe: pin ? `pinned: load on CPU 0, node on CPU ${count - 1}` : 'not pinned (no taskset or one CPU)'
  }
})()

/** Runs a TypeScript entry of the repo from source in its own process, on `cpu` when given. */
export async function startProcess (
  entry: string,
  env: Record<string, string>,
  ready: (line: string) => boolean,
  cpu?: string
): Promise<ChildProcess> {
  const args = ['--conditions=@impact/source', `${root}${entry}`]
  const child = spawn(
    cpu !== undefined ? 'taskset' : process.execPath,
    cpu !== undefined ? ['-c', cpu, process.execPath, ...args] : args,
    {
      cwd: root,
      env: { ...process.env, NODE_ENV: 'test', LOG_LEVEL: 'warn', ...env },
      stdio: ['ignore', 'pipe', 'pipe']
    }
  )
  children.push(child)
  let output = ''
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${entry} did not start: ${output}`)), 20_000)
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      if (output.split('\n').some(ready)) {
        clearTimeout(timer)
        resolve()
      }
    }
    child.stdout?.on('data', onData)
    child.stderr?.on('data', (chunk: Buffer) => { output += chunk.toString() })
    child.once('exit', (code) => reject(new Error(`${entry} exited (${code}): ${output}`)))
  })
  return child
}

export async function waitForHttp (url: string): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    try {
      if ((await fetch(url)).ok) return
    } catch {}
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`${url} did not come up`)
}

export function stopAll () {
  for (const child of children) child.kill('SIGTERM')
}
process.once('exit', stopAll)
