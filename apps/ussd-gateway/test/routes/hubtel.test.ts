import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { fileApp, newPhone } from '../helper.ts'

describe('POST /api/ussd/hubtel (latest-input aggregator)', () => {
  const ctx = fileApp()

  const hubtel = (SessionId: string, Mobile: string) => {
    let sequence = 0
    const send = async (Type: string, Message: string, Sequence = ++sequence) => {
      const res = await ctx.app.inject({
        method: 'POST',
        url: '/api/ussd/hubtel',
        payload: {
          Type,
          Mobile,
          SessionId,
          ServiceCode: '713*20',
          Message,
          Operator: 'mtn',
          Sequence: String(Sequence),
          ClientState: '',
          Platform: 'USSD'
        }
      })
      expect(res.statusCode).toBe(200)
      expect(res.headers['content-type']).toMatch(/^application\/json/)
      return res.json() as { Type: string, Message: string, SessionId: string, Label: string, DataType: string }
    }
    return { send, get sequence () { return sequence } }
  }

  it('runs the same menus from the latest input only, with numbers without +', async () => {
    const mobile = newPhone().slice(1)
    const session = hubtel(randomUUID().replace(/-/g, ''), mobile)
    const welcome = await session.send('Initiation', '*713*20#')
    expect(welcome).toMatchObject({
      Type: 'response',
      DataType: 'input',
      Label: 'Welcome to Impact Platform',
      Message: 'Welcome to Impact Platform\n1. Know More\n2. Account\n3. Language/Lugha\n*. Exit'
    })
    expect((await session.send('Response', '2')).Message)
      .toBe('Account\n1. Log in\n2. Create account\n3. Forgot Customer ID\n0. Back')
    expect((await session.send('Response', '2')).Message).toBe('Enter your full name:\n0. Back')
    expect((await session.send('Response', 'Kofi*Mensah')).Message).toMatch(/^Please enter a name/)
    expect((await session.send('Response', 'Kofi Mensah')).Message).toMatch(/^Enter your email/)
    expect((await session.send('Response', '0')).Message).toBe('Enter your full name:\n0. Back')
  })

  it('replays the stored reply when Hubtel repeats a sequence number', async () => {
    const session = hubtel(randomUUID(), newPhone().slice(1))
    await session.send('Initiation', '*713*20#')
    const info = await session.send('Response', '1')
    expect((await session.send('Response', '1', session.sequence)).Message).toBe(info.Message)
    expect((await session.send('Response', '2')).Message).toMatch(/^Create an account/)
  })

  it('jumps by a dial string that extends the service code', async () => {
    const session = hubtel(randomUUID(), newPhone().slice(1))
    expect((await session.send('Initiation', '*713*20*1*3#')).Message).toMatch(/^We never ask for your PIN/)
  })

  it('releases with END texts: exit, expired session, release request, invalid input', async () => {
    const session = hubtel(randomUUID(), newPhone().slice(1))
    await session.send('Initiation', '*713*20#')
    expect(await session.send('Response', '*')).toMatchObject({
      Type: 'release',
      DataType: 'display',
      Message: 'Thank you for using Impact Platform. Goodbye!'
    })
    const unknown = hubtel(randomUUID(), newPhone().slice(1))
    expect(await unknown.send('Response', '1', 4)).toMatchObject({
      Type: 'release',
      Message: 'Your session has expired. Please dial again.'
    })
    const released = hubtel(randomUUID(), newPhone().slice(1))
    await released.send('Initiation', '*713*20#')
    expect(await released.send('Release', '')).toMatchObject({ Type: 'release', Message: '' })
    const bad = await ctx.app.inject({
      method: 'POST',
      url: '/api/ussd/hubtel',
      payload: { Type: 'Response', Mobile: 'abc', SessionId: 'x', ServiceCode: '713', Message: '1', Sequence: 2 }
    })
    expect(bad.statusCode).toBe(200)
    expect(bad.json()).toMatchObject({ Type: 'release', SessionId: 'x', Message: 'Invalid input. Please try again.' })
  })
})
