import { createHash } from 'node:crypto'
import { describe, expect, it, onTestFinished } from 'vitest'
import { nodeAndGateway, startNode } from '../helper.ts'

const TX = Buffer.from('a signed transaction')

describe('broadcast pass-through', () => {
  it('is off by default: POST txs and simulate answer 404', async () => {
    const { node, app } = await nodeAndGateway()
    for (const url of ['/cosmos/tx/v1beta1/txs', '/cosmos/tx/v1beta1/simulate']) {
      const res = await app.inject({ method: 'POST', url, payload: { tx_bytes: TX.toString('base64') } })
      expect(res.statusCode).toBe(404)
      expect(res.json()).toEqual({ code: 5, message: 'Not Found', details: [] })
    }
    expect(node.calls.get('/cosmos.tx.v1beta1.Service/BroadcastTx')).toBeUndefined()
    const paths = (await app.inject({ method: 'GET', url: '/docs/json' })).json().paths
    expect(paths).not.toHaveProperty(['/cosmos/tx/v1beta1/txs'])
  })

  it('is documented in /docs when on, with the request and answer messages of the descriptors', async () => {
    const broadcaster = await startNode()
    onTestFinished(async () => await broadcaster.close())
    const { app } = await nodeAndGateway({}, { CHAIN_BROADCAST_URL: broadcaster.url })
    const paths = (await app.inject({ method: 'GET', url: '/docs/json' })).json().paths
    const txs = paths['/cosmos/tx/v1beta1/txs'].post
    expect(txs.requestBody.content['application/json'].schema.properties).toHaveProperty('tx_bytes')
    expect(txs.responses['200'].content['application/json'].schema.properties).toHaveProperty('tx_response')
    expect(paths['/cosmos/tx/v1beta1/simulate'].post.operationId).toBe('cosmos_tx_v1beta1_Service_Simulate')
  })

  it('passes transactions and simulations to the broadcast node only', async () => {
    const broadcaster = await startNode()
    onTestFinished(async () => await broadcaster.close())
    const { node, app } = await nodeAndGateway({}, { CHAIN_BROADCAST_URL: broadcaster.url })
    const sent = await app.inject({
      method: 'POST',
      url: '/cosmos/tx/v1beta1/txs',
      payload: { tx_bytes: TX.toString('base64'), mode: 'BROADCAST_MODE_SYNC' }
    })
    expect(sent.statusCode).toBe(200)
    expect(sent.headers['cache-control']).toBe('no-store')
    const hash = createHash('sha256').update(TX).digest('hex').toUpperCase()
    expect(sent.json().tx_response).toMatchObject({
      height: '0', txhash: hash, code: 0, logs: [], events: [], tx: null, gas_wanted: String(50_000 + TX.length * 10)
    })
    const simulated = await app.inject({
      method: 'POST',
      url: '/cosmos/tx/v1beta1/simulate',
      payload: { txBytes: TX.toString('base64') }
    })
    expect(simulated.statusCode).toBe(200)
    expect(simulated.json().gas_info).toEqual({ gas_wanted: '0', gas_used: String(50_000 + TX.length * 10) })
    expect(broadcaster.calls.get('/cosmos.tx.v1beta1.Service/BroadcastTx')).toBe(1)
    expect(broadcaster.calls.get('/cosmos.tx.v1beta1.Service/Simulate')).toBe(1)
    expect(node.calls.get('/cosmos.tx.v1beta1.Service/BroadcastTx')).toBeUndefined()
  })

  it('answers 400 for a body that is not the request message, and relays the node\'s refusals', async () => {
    const broadcaster = await startNode()
    onTestFinished(async () => await broadcaster.close())
    const { app } = await nodeAndGateway({}, { CHAIN_BROADCAST_URL: broadcaster.url })
    const bad = await app.inject({ method: 'POST', url: '/cosmos/tx/v1beta1/txs', payload: { mode: 'NO_SUCH_MODE' } })
    expect(bad.statusCode).toBe(400)
    expect(bad.json()).toMatchObject({ code: 3 })
    const empty = await app.inject({ method: 'POST', url: '/cosmos/tx/v1beta1/txs', payload: {} })
    expect(empty.statusCode).toBe(400)
    expect(empty.json()).toEqual({ code: 3, message: 'invalid empty tx', details: [] })
    const notJson = await app.inject({
      method: 'POST',
      url: '/cosmos/tx/v1beta1/txs',
      headers: { 'content-type': 'application/json' },
      payload: '{"tx_bytes":'
    })
    expect(notJson.statusCode).toBe(400)
    expect(notJson.json()).toMatchObject({ code: 3 })
  })
})
