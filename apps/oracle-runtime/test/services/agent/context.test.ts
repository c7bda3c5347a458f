import { Type } from '@sinclair/typebox'
import { beforeAll, describe, expect, it } from 'vitest'
import { fileHarness, testPlugin, type TestUser } from '../../support/harness.ts'

const PAGE = 900_000
const BUDGET = 8000
const TOOL_OUTPUT = 1000
const page = 'p'.repeat(PAGE)

const pagePlugin = testPlugin({
  name: 'page',
  description: 'Test plugin: a tool with a huge output, as a page-reading browser tool returns',
  setup: () => ({
    tools: [{ name: 'read_page', description: 'The page', parameters: Type.Object({}), execute: async () => page }]
  })
})

type Sent = Array<{ role: string, content: string | null }>

describe('the context sent to the model', () => {
  const t = fileHarness({ CONTEXT_MAX_CHARS: String(BUDGET), TOOL_OUTPUT_MAX_CHARS: String(TOOL_OUTPUT) }, {
    llm: true, plugins: [pagePlugin]
  })
  let user: TestUser
  let id: string
  const say = async (message: string) => { expect((await t.h.send(user.headers, id, message)).statusCode).toBe(200) }
  const lastSent = () => t.llm.requests.at(-1)?.body.messages as Sent

  beforeAll(async () => {
    user = await t.h.user()
    id = await t.h.newSession(user.headers)
    const prefs = { id: 'call_prefs', name: 'set_user_preferences', args: { agentName: 'Ava' } }
    t.llm.enqueue({ toolCalls: [prefs] }, { content: ['OK'] })
    await say('call yourself Ava')
    t.llm.enqueue({ toolCalls: [{ id: 'call_page', name: 'read_page', args: {} }] }, { content: ['Read it.'] })
    await say('read the page')
  })

  it('carries a huge tool output cut to TOOL_OUTPUT_MAX_CHARS with a marker, in its turn and later', async () => {
    const sameTurn = t.llm.requests.at(-1)?.body.messages.at(-1)
    expect(sameTurn.role).toBe('tool')
    expect(sameTurn.content).toMatch(/\[truncated: 899000 of 900000 characters left out\]$/)
    expect(sameTurn.content.length).toBeLessThan(TOOL_OUTPUT + 100)

    await say('what was on it?')
    const replayed = lastSent().find((m) => m.role === 'tool' && m.content?.startsWith('ppp') === true)
    expect(replayed?.content).toMatch(/\[truncated: 899000 of 900000 characters left out\]$/)
    expect(JSON.stringify(lastSent()).length).toBeLessThanOrEqual(BUDGET)
    const stored: Array<{ toolCalls?: Array<{ name: string, output: string }> }> =
      (await t.h.app.inject({ method: 'GET', url: `/messages/${id}`, headers: user.headers })).json().messages
    expect(stored.flatMap((m) => m.toolCalls ?? []).find((c) => c.name === 'read_page')?.output).toHaveLength(PAGE)
  })

  it('drops the oldest turns to fit the budget; keeps the system prompt, preferences and the new message', async () => {
    for (let i = 0; i < 6; i++) await say(`message ${i} ${'m'.repeat(900)}`)
    const sent = lastSent()
    expect(JSON.stringify(sent).length).toBeLessThanOrEqual(BUDGET)
    expect(sent[0]?.role).toBe('system')
    expect(sent[0]?.content).toContain('"agentName":"Ava"')
    expect(sent[1]?.role).toBe('user')
    expect(sent.at(-1)?.content).toMatch(/^message 5 /)
    expect(sent.at(-3)?.content).toMatch(/^message 4 /)
    const users = sent.filter((m) => m.role === 'user').map((m) => m.content?.slice(0, 10))
    expect(users).not.toContain('call yours')
    expect(users).not.toContain('read the p')
  })

  it('always sends the current message, even one larger than the budget', async () => {
    await say(`large ${'l'.repeat(BUDGET)}`)
    const sent = lastSent()
    expect(sent.map((m) => m.role)).toEqual(['system', 'user'])
    expect(sent[1]?.content).toHaveLength(BUDGET + 6)
  })
})
