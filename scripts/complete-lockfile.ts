// Keeps package-lock.json acceptable to `npm ci` when the registry lacks some platform builds.
//
// The registry this project installs from does not serve every native build of some packages
// (nx's darwin, windows and musl binaries, for example). `npm install` then leaves those optional
// dependencies out of the lockfile, and `npm ci` refuses the lockfile as out of sync. Recording
// them as optional entries restricted to their platform lets `npm ci` skip them, as it skips any
// optional package built for another platform. Runs as the root `postinstall`; idempotent.
import { readFileSync, writeFileSync } from 'node:fs'

interface LockEntry {
  version?: string
  dev?: boolean
  optional?: boolean
  optionalDependencies?: Record<string, string>
  os?: string[]
  cpu?: string[]
  libc?: string[]
}

const OS = ['darwin', 'linux', 'win32', 'freebsd', 'android', 'openbsd', 'sunos', 'aix']
const CPU = ['arm64', 'x64', 'ia32', 'arm', 'riscv64', 'ppc64', 's390x', 'loong64']

/** Platform of a package named like `@scope/pkg-darwin-arm64` or `pkg-linux-x64-musl`. */
function platformOf (name: string): Pick<LockEntry, 'os' | 'cpu' | 'libc'> | undefined {
  const parts = name.split('/').pop()?.split('-') ?? []
  const os = parts.find((p) => OS.includes(p))
  const cpu = parts.find((p) => CPU.includes(p)) ?? (parts.includes('gnueabihf') ? 'arm' : undefined)
  if (os === undefined || cpu === undefined) return undefined
  const libc = os !== 'linux' ? undefined : parts.some((p) => p.startsWith('musl')) ? 'musl' : 'glibc'
  return { os: [os], cpu: [cpu], ...(libc !== undefined ? { libc: [libc] } : {}) }
}

const path = new URL('../package-lock.json', import.meta.url)
const lock = JSON.parse(readFileSync(path, 'utf8')) as { packages: Record<string, LockEntry> }
let added = 0
for (const [location, entry] of Object.entries(lock.packages)) {
  for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const nested = `${location === '' ? '' : `${location}/`}node_modules/${name}`
    if (lock.packages[nested] !== undefined || lock.packages[`node_modules/${name}`] !== undefined) continue
    const platform = platformOf(name)
    if (platform === undefined || !/^\d+\.\d+\.\d+/.test(version)) continue
    lock.packages[`node_modules/${name}`] = {
      version,
      ...platform,
      ...(entry.dev === true ? { dev: true } : {}),
      optional: true
    }
    added++
  }
}
if (added > 0) {
  lock.packages = Object.fromEntries(
    Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b)))
  )
  writeFileSync(path, JSON.stringify(lock, null, 2) + '\n')
  process.stdout.write(
    `complete-lockfile: recorded ${added} optional platform package(s) the registry does not serve\n`
  )
}
