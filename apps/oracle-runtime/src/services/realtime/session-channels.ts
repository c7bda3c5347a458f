import { randomUUID } from 'node:crypto'
import type { FastifyBaseLogger } from 'fastify'
import type { SharedState, Unsubscribe } from '@impact/shared-state'
import type { WireEvent } from './catalog.ts'

interface Channel { refs: number, ready: Promise<Unsubscribe | undefined> }

// A replica subscribes to a session's channel only while it holds a connection of that session, and skips
// its own messages (it delivered them directly). Without Redis there is no other replica: a no-op.
export function createSessionChannels (deps: {
  state: SharedState
  log: FastifyBaseLogger
  deliver: (sessionId: string, event: WireEvent) => void
}) {
  const remote = deps.state.kind === 'redis'
  const own = `${randomUUID()} `
  const channels = new Map<string, Channel>()

  const onMessage = (sessionId: string) => (message: string) => {
    if (message.startsWith(own)) return
    try {
      const { name, data } = JSON.parse(message.slice(message.indexOf(' ') + 1)) as WireEvent
      if (typeof name === 'string') deps.deliver(sessionId, { name, data })
    } catch {
      deps.log.warn({ sessionId }, 'malformed realtime message ignored')
    }
  }

  return {
    async acquire (sessionId: string): Promise<void> {
      if (!remote) return
      let channel = channels.get(sessionId)
      if (channel === undefined) {
        const created: Channel = { refs: 0, ready: deps.state.subscribe(`rt:${sessionId}`, onMessage(sessionId)) }
        channels.set(sessionId, channel = created)
        created.ready.catch(() => { if (channels.get(sessionId) === created) channels.delete(sessionId) })
      }
      channel.refs++
      await channel.ready
    },

    release (sessionId: string) {
      const channel = channels.get(sessionId)
      if (channel === undefined || --channel.refs > 0) return
      channels.delete(sessionId)
      channel.ready.then(async (unsubscribe) => { await unsubscribe?.() }).catch(() => {})
    },

    publish (sessionId: string, event: WireEvent) {
      if (!remote) return
      deps.state.publish(`rt:${sessionId}`, own + JSON.stringify(event))
        .catch((err: unknown) => deps.log.warn({ err, sessionId }, 'realtime fan-out publish failed'))
    }
  }
}
