import { execFile } from 'node:child_process'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildOutput } from '../src/apps.ts'
import { stage, stageArgs, stageDependencies } from '../src/dockerfile.ts'
import { dockerignoreMatcher } from '../src/dockerignore.ts'
import { listFiles, readRepoFile } from '../src/paths.ts'
import { platform } from '../../scripts/platform.ts'
import { apps, dockerfile, runtimeImage } from './support.ts'

const runs = (name: string) =>
  stage(dockerfile, name)
    .instructions.filter((i) => i.keyword === 'RUN')
    .map((i) => i.args)
const copies = (name: string) =>
  stage(dockerfile, name)
    .instructions.filter((i) => i.keyword === 'COPY')
    .map((i) => i.args)
const rootPackage = JSON.parse(readRepoFile('package.json')) as {
  workspaces: string[]
  scripts: Record<string, string>
}
const workspaceManifests = listFiles('.').filter(
  (file) =>
    file.endsWith('package.json') &&
    rootPackage.workspaces.some((glob) => new RegExp(`^${glob.replace('*', '[^/]+')}/package\\.json$`).test(file))
)

describe('docker/Dockerfile', () => {
  it('builds every stage on node:24-slim', () => {
    for (const current of dockerfile.stages) {
      let root = current
      while (dockerfile.stages.some((s) => s.name === root.from)) root = stage(dockerfile, root.from)
      expect(root.from, `stage ${String(current.name)}`).toBe('node:24-slim')
    }
  })

  it('installs from the lockfile with the root postinstall script and every workspace manifest present', () => {
    const manifests = runs('manifests').join(' ')
    expect(manifests).toContain('package-lock.json')
    const postinstall = rootPackage.scripts.postinstall as string
    const script = /scripts\/\S+\.ts/.exec(postinstall)?.[0]
    expect(script).toBeDefined()
    expect(manifests).toContain(`cp ${String(script)}`)
    const depth = Number(/-maxdepth (\d+)/.exec(manifests)?.[1])
    expect(workspaceManifests.length).toBeGreaterThanOrEqual(apps.length)
    for (const file of workspaceManifests) expect(file.split('/').length, file).toBeLessThanOrEqual(depth)
    const build = stage(dockerfile, 'build').instructions.map((i) => `${i.keyword} ${i.args}`)
    const install = build.findIndex((line) => /^RUN npm ci\b/.test(line))
    expect(build.findIndex((line) => line.startsWith('COPY --from=manifests'))).toBeLessThan(install)
    expect(build[install]).not.toContain('--omit')
    expect(build.findIndex((line) => line === 'COPY . .')).toBeGreaterThan(install)
  })

  it('builds with the repository build script (nx)', () => {
    expect(runs('build')).toContain('npm run build')
    expect(rootPackage.scripts.build).toMatch(/^nx run-many -t build/)
  })

  it('ships only production dependencies of the app workspace, never the build stage', () => {
    expect(runs('prod-deps').join(' ')).toMatch(/npm ci --omit=dev --workspace "apps\/\$\{APP\}"/)
    const runtime = stage(dockerfile, 'runtime')
    expect(runtime.from).toBe('base')
    expect(copies('runtime').map((args) => /--from=(\S+)/.exec(args)?.[1])).toEqual(['prod-deps', 'app-files'])
    expect(copies('app-files')).toEqual([])
    expect(runs('app-files').join(' ')).toMatch(/cp -R "apps\/\$\{APP\}\/\$\{asset\}"/)
  })

  it('leaves the chain development node out of every production image', () => {
    const devEntry = platform.find((p) => p.name === 'chain-dev-node')?.entry
    expect(devEntry).toBe(`apps/chain-rest-gateway/${buildOutput('chain-rest-gateway', 'src/dev-node/server.ts')}`)
    expect(runs('app-files').join(' ')).toContain(
      `rm -rf "/out/apps/\${APP}/${buildOutput('chain-rest-gateway', 'src/dev-node')}"`
    )
    expect(buildOutput('chain-rest-gateway', 'src/dev-node/node.ts').startsWith('dist/dev-node/')).toBe(true)
    expect(stageDependencies(dockerfile, 'runtime').has('chain-dev-node')).toBe(false)
    const devImage = stage(dockerfile, 'chain-dev-node')
    expect(devImage.instructions.find((i) => i.keyword === 'ENV')?.args).toContain('NODE_ENV=development')
    expect(dockerfile.stages.at(-1)?.name).toBe('runtime')
  })

  it('ships every file the apps read next to their build', () => {
    const assets = (stageArgs(stage(dockerfile, 'app-files')).get('RUNTIME_ASSETS') ?? '').split(' ')
    const ignored = dockerignoreMatcher(readRepoFile('.dockerignore'))
    let found = 0
    for (const app of apps) {
      for (const file of listFiles(`apps/${app.name}/src`).filter((f) => f.endsWith('.ts'))) {
        for (const match of readRepoFile(file).matchAll(/new URL\('([^']+)', import\.meta\.url\)/g)) {
          const compiled = `apps/${app.name}/${buildOutput(app.name, file.slice(`apps/${app.name}/`.length))}`
          const target = new URL(match[1] as string, `file:///${compiled}`).pathname.slice(1)
          const inApp = target.slice(`apps/${app.name}/`.length)
          expect(target.startsWith(`apps/${app.name}/`), `${file} reads ${target}`).toBe(true)
          expect(assets, `${file} reads ${target}`).toContain(inApp.split('/')[0])
          expect(listFiles(`apps/${app.name}`)).toContain(target)
          expect(ignored(target), `${target} is in the build context`).toBe(false)
          found++
        }
      }
    }
    expect(found).toBeGreaterThan(0)
  })

  it('runs as the unprivileged node user under dumb-init from Debian', () => {
    expect(runs('base').join(' ')).toMatch(/apt-get install -y --no-install-recommends dumb-init/)
    for (const app of apps) {
      const image = runtimeImage(app)
      expect(image.user).toBe('node')
      expect(image.entrypoint).toEqual(['dumb-init', '--'])
    }
  })

  describe.each(apps.map((app) => [app.name, app] as const))('%s image', (_name, app) => {
    it('listens on all interfaces on the app\'s port, in production mode', () => {
      const image = runtimeImage(app)
      expect(image.env).toMatchObject({ HOST: '0.0.0.0', NODE_ENV: 'production', PORT: String(app.port) })
      expect((app.schema.properties.PORT as { default: number }).default).toBe(app.port)
      expect(image.expose).toEqual([String(app.port)])
      // Production needs the secrets too (checked with compose and k8s); the image's own keys parse.
      expect(app.loadConfig({ ...image.env, NODE_ENV: 'test' })).toMatchObject({ HOST: '0.0.0.0', PORT: app.port })
    })

    it('starts the server entry that tsc produces', () => {
      const image = runtimeImage(app)
      expect(image.workdir).toBe(`/app/apps/${app.name}`)
      expect(image.cmd).toEqual(['node', buildOutput(app.name, 'src/server.ts')])
      expect(image.cmd).toEqual(['node', 'dist/server.js'])
    })
  })

  describe('HEALTHCHECK', () => {
    let server: Server
    let status = 200
    const seen: string[] = []
    beforeAll(async () => {
      server = createServer((request, response) => {
        seen.push(request.url ?? '')
        response.statusCode = request.url === '/health/live' ? status : 404
        response.end()
      })
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    })
    afterAll(async () => { await new Promise((resolve) => server.close(resolve)) })

    const probe = async (port: number): Promise<number> => {
      const command = runtimeImage(apps[0] as (typeof apps)[number]).healthcheck ?? []
      expect(stage(dockerfile, 'runtime').instructions.find((i) => i.keyword === 'HEALTHCHECK')?.args).toMatch(
        / CMD \[/
      )
      expect(command[0]).toBe('node')
      try {
        await promisify(execFile)(process.execPath, command.slice(1), { env: { PORT: String(port) }, timeout: 10_000 })
        return 0
      } catch (error) {
        return (error as { code?: number }).code ?? -1
      }
    }

    it('passes when /health/live answers 200 on $PORT and fails otherwise', async () => {
      const port = (server.address() as AddressInfo).port
      status = 200
      expect(await probe(port)).toBe(0)
      expect(seen).toContain('/health/live')
      status = 503
      expect(await probe(port)).toBe(1)
      const closed = createServer()
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
      const unused = (closed.address() as AddressInfo).port
      await new Promise((resolve) => closed.close(resolve))
      expect(await probe(unused)).toBe(1)
    })
  })
})

describe('.dockerignore', () => {
  const ignored = dockerignoreMatcher(readRepoFile('.dockerignore'))

  it('keeps secrets, installed and built trees and VCS data out of the build context', () => {
    for (const path of [
      'node_modules/fastify/package.json',
      'apps/domain-api/node_modules/x/index.js',
      'apps/domain-api/dist/server.js',
      'libs/persistence/dist/index.js',
      '.git/HEAD',
      '.env',
      'docker/secrets/domain-api.env',
      'docker/secrets/postgres.env',
      '.data/domain-api/PG_VERSION',
      'apps/ussd-gateway/test/ussd.test.ts',
      'apps/domain-api/tsconfig.build.tsbuildinfo',
      'deploy/test/compose.test.ts'
    ]) {
      expect(ignored(path), path).toBe(true)
    }
  })

  it('sends everything the install and the build read', () => {
    const needed = [
      'package.json',
      'package-lock.json',
      '.npmrc',
      'nx.json',
      'tsconfig.base.json',
      'scripts/complete-lockfile.ts',
      'docker/Dockerfile',
      ...workspaceManifests,
      ...apps.flatMap((app) => [...listFiles(`apps/${app.name}/src`), `apps/${app.name}/tsconfig.build.json`]),
      ...listFiles('libs').filter((file) => /^libs\/[^/]+\/(src\/|tsconfig\.build\.json$)/.test(file))]
    for (const path of needed) expect(ignored(path), path).toBe(false)
  })
})
