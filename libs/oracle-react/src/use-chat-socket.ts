import { useEffect, useRef, useState, type RefObject } from 'react'
import type {
  AnyAgAction,
  AnyBrowserTool,
  OracleClient,
  OracleEvent,
  OracleSocket,
  SocketState
} from '@impact/oracle-client'

export interface ChatSocketOptions {
  client: OracleClient
  sessionId: string | undefined
  enabled: boolean
  /** This render's tools and actions: only their names decide when to reconnect. */
  browserTools: readonly AnyBrowserTool[] | undefined
  agActions: readonly AnyAgAction[] | undefined
  /** The latest lists, read at call time (inline arrays do not reconnect). */
  tools: RefObject<{
    browserTools?: readonly AnyBrowserTool[] | undefined
    agActions?: readonly AnyAgAction[] | undefined
  }>
  onEvent: (event: OracleEvent) => void
  onError: (error: Error) => void
}

const names = (list: ReadonlyArray<{ name: string }> | undefined) => (list ?? []).map((t) => t.name).sort().join(',')

/** Stand-ins for the named tools (or actions) that run whichever handler the latest list has under that name. */
function proxies (
  list: string,
  kind: string,
  latest: () => ReadonlyArray<AnyBrowserTool | AnyAgAction> | undefined
): AnyBrowserTool[] {
  return list.split(',').filter((n) => n !== '').map((name) => ({
    name,
    description: '',
    schema: {},
    handler: async (args, context) => {
      const tool = latest()?.find((t) => t.name === name)
      if (tool === undefined) throw new Error(`${kind} ${name} not found`)
      return await tool.handler(args, context)
    }
  }))
}

/**
 * The session's socket for a chat: connected while a session is open and the chat declares browser
 * tools or actions (or asks for live events), reconnected only when the session, the client or the
 * set of tool names changes. Handlers are looked up by name at call time.
 */
export function useChatSocket (options: ChatSocketOptions): {
  state: SocketState | 'off'
  socket: RefObject<OracleSocket | undefined>
} {
  const { client, sessionId, enabled, tools } = options
  const [state, setState] = useState<SocketState | 'off'>('off')
  const socket = useRef<OracleSocket | undefined>(undefined)
  const handlers = useRef(options)
  useEffect(() => { handlers.current = options })
  const toolNames = names(options.browserTools)
  const actionNames = names(options.agActions)

  useEffect(() => {
    if (!enabled || sessionId === undefined) {
      setState('off')
      return
    }
    const browserTools = proxies(toolNames, 'Browser tool', () => tools.current.browserTools)
    const agActions = proxies(actionNames, 'Action tool', () => tools.current.agActions)
    const connection = client.connectSocket(sessionId, {
      browserTools,
      agActions,
      onEvent: (event) => { handlers.current.onEvent(event) },
      onError: (error) => { handlers.current.onError(error) },
      onStateChange: setState
    })
    socket.current = connection
    setState(connection.state)
    return () => {
      connection.close()
      if (socket.current === connection) socket.current = undefined
    }
  }, [client, sessionId, enabled, toolNames, actionNames, tools])

  return { state, socket }
}
