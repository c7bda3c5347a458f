import { randomUUID } from 'node:crypto'
import type { ChatMessage, ChatModel, ChatRequest, ModelChunk, ToolDefinition } from './model.ts'

/**
 * The agent used when no LLM_BASE_URL is configured, so the runtime works with no network. It is
 * deterministic: the same conversation gives the same answer. It still exercises the whole turn
 * machinery: it calls a tool whose name the user mentions (arguments from a JSON object in the
 * message, e.g. `get_weather {"city":"Paris"}`; without one, a DID in the message fills a `did`
 * argument and a /path a `route`), saves behaviour preferences through `set_user_preferences`
 * ("call me Sam", "call yourself Ava", "answer in French", "be formal", "use a warm tone"), and
 * knows two platform requests: "register a stove serial ST-12 [under did:…]" calls `register_domain`,
 * and any other message naming a DID calls `get_domain`. It summarises tool results and addresses
 * the user as the preferences say.
 */

const FORMALITIES = ['casual', 'friendly', 'neutral', 'semi-formal', 'professional', 'formal', 'technical', 'academic']
const PREFERENCE_MARKER = /User preferences \(JSON\): (\{.*\})/

function preferenceIntent (text: string): Record<string, string> | undefined {
  const intent: Record<string, string> = {}
  const agentName = /\b(?:call yourself|your name is|i'?ll call you)\s+([\p{L}][\p{L}\p{N}_-]{0,40})/iu.exec(text)?.[1]
  const userName = /\bcall me\s+([\p{L}][\p{L}\p{N}_-]{0,40})/iu.exec(text)?.[1]
  const language = /\b(?:answer|reply|respond|speak|talk|write)\s+in\s+([\p{L}]{2,20})/iu.exec(text)?.[1]
  const formality = new RegExp(`\\bbe (?:more |very )?(${FORMALITIES.join('|')})\\b`, 'i')
    .exec(text)?.[1]
    ?.toLowerCase()
  const tone = /\buse an? ([\p{L}-]{2,30}) tone\b/iu.exec(text)?.[1]
  if (agentName !== undefined) intent.agentName = agentName
  if (userName !== undefined) intent.userName = userName
  if (language !== undefined) intent.language = language
  if (formality !== undefined) intent.formality = formality
  if (tone !== undefined) intent.tone = tone
  return Object.keys(intent).length > 0 ? intent : undefined
}

function jsonArgs (text: string, after: number): Record<string, unknown> {
  const start = text.indexOf('{', after)
  const end = text.lastIndexOf('}')
  if (start < 0 || end < start) return {}
  try {
    const value = JSON.parse(text.slice(start, end + 1)) as unknown
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? value as Record<string, unknown> : {}
  } catch {
    return {}
  }
}

const DID = /\bdid:[a-z0-9]+:[\w.:%/-]*[\w]/
const ROUTE = /(?:^|\s)(\/[\w.~:@%/-]+(?:\?\S*)?)/
const STOVE = /\bregister\b.*\bstove\b/i
const SERIAL = /\bserial(?:\s+number)?\s*(?:is|:|#|no\.?)?\s*([A-Za-z0-9][\w-]{0,99})/i

const takes = (tool: ToolDefinition, name: string) =>
  Object.hasOwn((tool.parameters.properties ?? {}) as Record<string, unknown>, name)

/** Arguments of a named tool: a JSON object in the message, else a DID and a /route for the parameters so named. */
function argsFor (tool: ToolDefinition, text: string, after: number): Record<string, unknown> {
  const json = jsonArgs(text, after)
  if (Object.keys(json).length > 0) return json
  const rest = text.slice(after)
  const args: Record<string, unknown> = {}
  const did = DID.exec(rest)?.[0]
  const route = ROUTE.exec(rest)?.[1]
  if (did !== undefined && takes(tool, 'did')) args.did = did
  if (route !== undefined && takes(tool, 'route')) args.route = route
  return args
}

/** The platform requests the offline agent knows without a tool name (see the module comment). */
function platformIntent (
  text: string,
  tools: ToolDefinition[]
): { name: string, args: Record<string, unknown> } | undefined {
  const offered = (name: string) => tools.some((t) => t.name === name)
  const did = DID.exec(text)?.[0]
  const serial = SERIAL.exec(text)?.[1]
  if (STOVE.test(text) && serial !== undefined && offered('register_domain')) {
    return {
      name: 'register_domain',
      args: { name: `Stove ${serial}`, type: 'Device', serial, ...(did !== undefined ? { protocol: did } : {}) }
    }
  }
  if (did !== undefined && offered('get_domain')) return { name: 'get_domain', args: { did } }
  return undefined
}

function mentionedTool (text: string, tools: ToolDefinition[]): { tool: ToolDefinition, at: number } | undefined {
  for (const tool of tools) {
    if (tool.name === 'set_user_preferences') continue
    const match = new RegExp(`(?:^|[^\\w])${tool.name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\w])`).exec(text)
    if (match !== null) return { tool, at: match.index + match[0].length }
  }
  return undefined
}

function preferencesIn (messages: ChatMessage[]): Record<string, unknown> {
  for (const m of messages) {
    if (m.role !== 'system') continue
    const json = PREFERENCE_MARKER.exec(m.content)?.[1]
    if (json !== undefined) {
      try { return JSON.parse(json) as Record<string, unknown> } catch {}
    }
  }
  return {}
}

function answerFor (messages: ChatMessage[]): string {
  const last = messages.at(-1)
  const prefs = preferencesIn(messages)
  const greeting = [
    typeof prefs.userName === 'string' ? `Hi ${prefs.userName}` : 'Hi',
    typeof prefs.agentName === 'string' ? `, this is ${prefs.agentName}.` : '!'
  ].join('')
  if (last?.role === 'tool') {
    const names = new Map<string, string>()
    for (const m of messages) {
      if (m.role === 'assistant') for (const c of m.tool_calls ?? []) names.set(c.id, c.function.name)
    }
    const results: string[] = []
    for (let i = messages.length - 1; i >= 0; i--) {
      const m = messages[i]
      if (m?.role !== 'tool') break
      results.unshift(`${names.get(m.tool_call_id) ?? 'tool'}: ${m.content.slice(0, 300)}`)
    }
    return `${greeting} Here is what the tools reported. ${results.join(' | ')}`
  }
  const text = last?.role === 'user' ? last.content : ''
  return `${greeting} You said: "${text.slice(0, 500)}". I am the offline agent, so I answer without a language model.`
}

function * words (text: string): Iterable<string> {
  const parts = text.match(/\S+\s*/g) ?? [text]
  for (const part of parts) yield part
}

export function createOfflineModel (): ChatModel {
  async function * stream (req: ChatRequest): AsyncIterable<ModelChunk> {
    const last = req.messages.at(-1)
    yield { type: 'reasoning', text: 'Matching the message against the available tools and preferences.' }
    if (last?.role === 'user') {
      const prefs = req.tools.some((t) => t.name === 'set_user_preferences')
        ? preferenceIntent(last.content)
        : undefined
      const mention = mentionedTool(last.content, req.tools)
      const call = prefs !== undefined
        ? { name: 'set_user_preferences', args: prefs }
        : mention !== undefined
          ? { name: mention.tool.name, args: argsFor(mention.tool, last.content, mention.at) }
          : platformIntent(last.content, req.tools)
      if (call !== undefined) {
        yield {
          type: 'tool_call',
          index: 0,
          id: `call_${randomUUID().replaceAll('-', '').slice(0, 24)}`,
          name: call.name,
          arguments: JSON.stringify(call.args)
        }
        return
      }
    }
    for (const word of words(answerFor(req.messages))) {
      if (req.signal.aborted) return
      yield { type: 'content', text: word }
      // Yield to the event loop between words, as a network stream would, so aborts can land.
      await new Promise((resolve) => setImmediate(resolve))
    }
  }
  return { kind: 'offline', stream, close: async () => {} }
}
