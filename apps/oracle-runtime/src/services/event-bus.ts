// Delivery is synchronous and in-process: a turn runs on one replica, whose socket gateway reaches
// other replicas through its own adapter.

export type RuntimeEventName =
  | 'message'
  | 'reasoning'
  | 'tool_call'
  | 'action_call'
  | 'browser_tool_call'
  | 'render_component'
  | 'router_update'
  | 'message_cache_invalidation'
  | 'approval_request'
  | 'error'
  | 'done'

export interface RuntimeEvent {
  name: RuntimeEventName
  sessionId: string
  requestId: string
  did: string
  /** In the wire shape of the event (oracle-wire §3.3, §6). */
  data: Record<string, unknown>
}

export interface EventFilter { sessionId?: string, requestId?: string }
export type EventHandler = (event: RuntimeEvent) => void

export interface EventBus {
  publish: (event: RuntimeEvent) => void
  subscribe: (filter: EventFilter, handler: EventHandler) => () => void
  readonly subscriberCount: number
}

export function createEventBus (onHandlerError: (error: unknown) => void = () => {}): EventBus {
  const subscriptions = new Set<{ filter: EventFilter, handler: EventHandler }>()
  return {
    publish (event) {
      for (const { filter, handler } of subscriptions) {
        if (filter.sessionId !== undefined && filter.sessionId !== event.sessionId) continue
        if (filter.requestId !== undefined && filter.requestId !== event.requestId) continue
        try {
          handler(event)
        } catch (error) {
          // One broken subscriber (a dead socket) must not stop the turn or the other subscribers.
          onHandlerError(error)
        }
      }
    },
    subscribe (filter, handler) {
      const subscription = { filter, handler }
      subscriptions.add(subscription)
      return () => { subscriptions.delete(subscription) }
    },
    get subscriberCount () {
      return subscriptions.size
    }
  }
}
