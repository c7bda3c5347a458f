import { describe, expect, it } from 'vitest'
import { bindingValues, compileTemplate } from '../../src/services/path-template.ts'
import type { GatewayRoute } from '../../src/services/route-catalog.ts'
import { createRouteTable } from '../../src/services/route-table.ts'

const entry = (template: string) => ({ route: { compiled: compileTemplate(template) } as GatewayRoute, template })

function matcher (...templates: string[]) {
  const table = createRouteTable(templates.map(entry), 200)
  return (url: string) => {
    const found = table.match(url)
    if (found === undefined) return undefined
    return [found.entry.template, bindingValues(found.entry.route.compiled.bindings, found.params)]
  }
}

describe('route table', () => {
  it('prefers static routes and binds one-segment variables', () => {
    const match = matcher('/ixo/entity/{id}', '/ixo/entity/params')
    expect(match('/ixo/entity/params')).toEqual(['/ixo/entity/params', []])
    expect(match('/ixo/entity/did:ixo:entity:abc?x=1')).toEqual(['/ixo/entity/{id}', [['id', 'did:ixo:entity:abc']]])
    expect(match('/ixo/entity/a%2Fb')?.[1]).toBeUndefined()
    expect(match('/ixo/other')).toBeUndefined()
  })

  it('matches segments after a ** variable from the end of the path, as grpc-gateway does', () => {
    const match = matcher('/a/{x=**}', '/a/{x=**}/owners', '/a/{x=**}/owners/count')
    expect(match('/a/ibc/HASH')).toEqual(['/a/{x=**}', [['x', 'ibc/HASH']]])
    expect(match('/a/ibc/HASH/owners')).toEqual(['/a/{x=**}/owners', [['x', 'ibc/HASH']]])
    expect(match('/a/factory/addr/sub/owners/count')).toEqual([
      '/a/{x=**}/owners/count',
      [['x', 'factory/addr/sub']]
    ])
    expect(match('/a/owners')).toEqual(['/a/{x=**}/owners', [['x', '']]])
  })

  it('finds nothing when no template requires the tail', () => {
    const match = matcher('/denoms/{denom=**}/owners')
    expect(match('/denoms/uixo/holders')).toBeUndefined()
    expect(match('/denoms/ibc/X/owners')).toEqual(['/denoms/{denom=**}/owners', [['denom', 'ibc/X']]])
  })
})
