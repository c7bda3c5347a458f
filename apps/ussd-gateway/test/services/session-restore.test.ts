import { createMemoryState } from '@impact/shared-state'
import { describe, expect, it, onTestFinished } from 'vitest'
import { createSession } from '../../src/services/session.ts'
import { createSessionStore } from '../../src/services/session-store.ts'

// In-process, a hop changes the stored session in place; a failed hop is undone through `restore`.
describe('undoing a failed hop (in-process sessions)', () => {
  function open () {
    const state = createMemoryState()
    const store = createSessionStore(state, { ttlMs: 60_000 })
    onTestFinished(async () => {
      store.close()
      await state.close()
    })
    const restore = store.restore
    if (restore === undefined) throw new Error('the in-process store lends out its sessions and must restore them')
    return { store, restore }
  }
  const session = () => createSession({ id: 'ATUid_1', phone: '+254700000001', state: 'loginPin', message: 'Enter your 5-digit PIN:', keptText: '2*1*C1A2B3C4D' })

  it('puts the snapshot taken before the hop back', async () => {
    const { store, restore } = open()
    await store.save(session())
    const live = await store.touch('ATUid_1')
    if (live === undefined) throw new Error('no session')
    const snapshot = { ...live }
    live.state = 'servicesMenu'
    live.keptText = '2*1*C1A2B3C4D*\uffff\uffff\uffff\uffff\uffff'
    restore(snapshot)
    expect(await store.peek('ATUid_1')).toMatchObject({ state: 'loginPin', keptText: '2*1*C1A2B3C4D' })
  })

  it('frees the session of a hop that took no snapshot', async () => {
    const { store, restore } = open()
    await store.save(session())
    restore('ATUid_1')
    expect(await store.peek('ATUid_1')).toBeUndefined()
    expect(await store.list(10)).toEqual([])
  })

  it('leaves a session freed meanwhile freed', async () => {
    const { store, restore } = open()
    await store.save(session())
    const snapshot = { ...(await store.peek('ATUid_1'))! }
    await store.remove('ATUid_1')
    restore(snapshot)
    expect(await store.peek('ATUid_1')).toBeUndefined()
  })
})
