import { execFileSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { applyJsonPatch, strategicMerge } from '../src/patch.ts'
import { configMapHash, nameOf, parseEnvFile } from '../src/kustomize.ts'
import { schemaErrors, unknownFieldErrors } from '../src/k8s-schema.ts'
import { repoPath } from '../src/paths.ts'
import { parseYamlDocuments, type Json, type JsonObject } from '../src/yaml.ts'
import { built, OVERLAYS } from './support.ts'

/** kubectl ships kustomize; present on the machines this project runs on, optional elsewhere. */
function kubectlKustomize (dir: string): string | undefined {
  try {
    return execFileSync('kubectl', ['kustomize', dir], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw error
  }
}
const hasKubectl = kubectlKustomize(repoPath('k8s', 'base')) !== undefined
const key = (resource: JsonObject) =>
  `${String(resource.kind)}/${String((resource.metadata as JsonObject).namespace)}/${nameOf(resource)}`

describe.each(OVERLAYS)('k8s/overlays/%s', (overlay) => {
  it('builds', () => {
    expect(built[overlay].length).toBeGreaterThan(20)
    expect(new Set(built[overlay].map(key)).size).toBe(built[overlay].length)
    for (const resource of built[overlay]) {
      expect((resource.metadata as JsonObject).namespace, key(resource)).toBe(
        overlay === 'prod' ? 'impact' : 'impact-dev'
      )
    }
  })

  it.runIf(hasKubectl)('builds exactly what kubectl kustomize builds', () => {
    const theirs = parseYamlDocuments(
      kubectlKustomize(repoPath('k8s', 'overlays', overlay)) as string,
      `kubectl kustomize ${overlay}`
    )
    expect(new Map(built[overlay].map((resource) => [key(resource), resource]))).toEqual(
      new Map(theirs.map((resource) => [key(resource), resource]))
    )
  })

  it('matches the Kubernetes API schemas, with no field the API does not define', async () => {
    expect(await schemaErrors(built[overlay])).toEqual([])
    expect(unknownFieldErrors(built[overlay])).toEqual([])
  })
})

describe('schema checks', () => {
  it('report wrong types and unknown fields', async () => {
    const broken = structuredClone(built.prod)
    const deployment = broken.find((resource) => resource.kind === 'Deployment') as {
      spec: { template: { spec: { containers: Array<Record<string, unknown>> } } }
    }
    const service = broken.find((resource) => resource.kind === 'Service') as {
      spec: { ports: Array<Record<string, unknown>> }
    }
    ;(deployment.spec.template.spec.containers[0] as Record<string, unknown>).readinesProbe = {}
    ;(service.spec.ports[0] as Record<string, unknown>).port = 'eighty'
    expect((await schemaErrors(broken)).join('\n')).toMatch(/port must be integer/)
    expect(unknownFieldErrors(broken).join('\n')).toMatch(/readinesProbe/)
  })
})

describe('builder', () => {
  it('merges maps and named lists, replaces other lists, deletes on null', () => {
    const base: Json = {
      metadata: { labels: { a: '1', b: '2' } },
      spec: { containers: [{ name: 'x', image: 'i', env: [{ name: 'A', value: '1' }] }, { name: 'y' }], args: ['a'] }
    }
    expect(
      strategicMerge(base, {
        metadata: { labels: { b: null, c: '3' } },
        spec: { containers: [{ name: 'x', env: [{ name: 'B', value: '2' }] }], args: ['b'] }
      })
    ).toEqual({
      metadata: { labels: { a: '1', c: '3' } },
      spec: {
        containers: [
          {
            name: 'x',
            image: 'i',
            env: [
              { name: 'A', value: '1' },
              { name: 'B', value: '2' }
            ]
          },
          { name: 'y' }
        ],
        args: ['b']
      }
    })
  })

  it('applies RFC 6902 add, replace and remove, and refuses paths that do not exist', () => {
    const document = { metadata: { annotations: { 'a/b': 'x' } }, spec: { rules: [{ host: 'h' }] } }
    expect(
      applyJsonPatch(document, [
        { op: 'replace', path: '/spec/rules/0/host', value: 'k' },
        { op: 'add', path: '/spec/tls', value: [{ hosts: ['k'] }] },
        { op: 'remove', path: '/metadata/annotations/a~1b' }
      ])
    ).toEqual({ metadata: { annotations: {} }, spec: { rules: [{ host: 'k' }], tls: [{ hosts: ['k'] }] } })
    expect(() => applyJsonPatch(document, [{ op: 'replace', path: '/spec/nothing/0', value: 1 }])).toThrow(
      /does not exist/
    )
  })

  it('reads env files as kustomize does', () => {
    expect(parseEnvFile('# c\n\nA=1\nB=\n  C=x=y \n', 'f')).toEqual({ A: '1', B: '', C: 'x=y ' })
    expect(() => parseEnvFile('JUSTNAME\n', 'f')).toThrow(/KEY=value/)
  })

  it('names generated ConfigMaps with kustomize\'s content hash', () => {
    // Values observed from kustomize 5.5 (kubectl kustomize) for these literals.
    expect(configMapHash({ A: 'b' })).toBe('b9t2424hkf')
    expect(configMapHash({ A: '', B: '3001' })).toBe('9ftg2d899f')
  })
})
