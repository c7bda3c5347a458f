import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Type } from '@sinclair/typebox'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { testPlugin } from '../../../../oracle-runtime/test/support/harness.ts'
import {
  accountView, createAccount, Dialer, putRoles, setupApp, type TestContext, type UssdReply
} from '../../helper.ts'
import { deadUrl, startOracle, startRegistry, type Registry } from '../../platform.ts'

const CODE = '*384*123#'
const PIN = '48213'
const dir = await mkdtemp(join(tmpdir(), 'ussd-platform-'))
afterAll(async () => { await rm(dir, { recursive: true, force: true }) })

/** A tool that answers once the test lets it: a slow oracle. */
let release: (value: string) => void = () => {}
const slowPlugin = testPlugin({
  name: 'slow',
  description: 'Test plugin: a tool that finishes when the test says so',
  setup: () => ({
    tools: [{
      name: 'slow_stove_tips',
      description: 'Takes its time',
      parameters: Type.Object({}),
      execute: async () => await new Promise<string>((resolve) => { release = resolve })
    }]
  })
})

const ORGANISATION_CODE = '*384*124#'

/**
 * The clean-cooking programme on CODE with every menu, pointing at the registry's project; with
 * `organisationProject`, a second one on ORGANISATION_CODE whose project belongs to an organisation.
 */
async function programmeFile (projectDid: string, name = 'programmes.json', organisationProject?: string) {
  const file = join(dir, name)
  const programme = (name: string, projectDid: string) => ({
    name,
    projectDid,
    menus: ['myDomains', 'askAssistant', 'registerStove', 'checkStove'],
    domainWord: { en: { one: 'stove', many: 'stoves' }, sw: { one: 'jiko', many: 'majiko' } }
  })
  await writeFile(file, JSON.stringify({
    programmes: {
      [CODE]: programme('Clean Cooking', projectDid),
      ...(organisationProject !== undefined
        ? { [ORGANISATION_CODE]: programme('Stove Makers', organisationProject) }
        : {})
    }
  }))
  return file
}

/** A new session logged in as `customerId`: the screen after the PIN. */
async function logIn (
  ctx: TestContext,
  customerId: string,
  serviceCode = CODE
): Promise<{ phone: Dialer, welcome: UssdReply }> {
  const phone = new Dialer(ctx.app, { serviceCode })
  await phone.dial('2*1')
  await phone.send(customerId)
  return { phone, welcome: await phone.send(PIN) }
}

const didOf = async (ctx: TestContext, customerId: string) =>
  (await accountView(ctx, customerId)).json().did as string

describe('the platform menus, acting as the account on a real domain-api and oracle', () => {
  let registry: Registry
  let oracle: Awaited<ReturnType<typeof startOracle>>
  let ctx: TestContext
  let project: { protocol: string, project: string }
  let ofOrganisation: { protocol: string, project: string, organisation?: string | undefined }

  beforeAll(async () => {
    registry = await startRegistry()
    // With domain-api, the oracle's platform plugin is on: its tools read the registry as the asking account.
    oracle = await startOracle({ DOMAIN_API_URL: registry.url }, { plugins: [slowPlugin] })
    project = await registry.programme()
    ofOrganisation = await registry.programme({ organisation: true, protocol: project.protocol })
    ctx = await setupApp({
      USSD_PROGRAMMES_FILE: await programmeFile(project.project, 'programmes.json', ofOrganisation.project),
      DOMAIN_API_URL: registry.url,
      ORACLE_URL: oracle.url,
      USSD_HOP_DEADLINE_MS: '3000'
    })
  })
  afterAll(async () => {
    await ctx?.close()
    await Promise.all([registry?.close(), oracle?.close()])
  })

  /** A household that signed up, and a field agent (USSD role agent, domain-api role registrar). */
  async function people () {
    const household = await createAccount(ctx, { name: 'Achieng Otieno', pin: PIN })
    const agent = await createAccount(ctx, { name: 'Field Agent Wekesa', pin: PIN })
    expect((await putRoles(ctx, agent.customerId, { roles: ['household', 'agent'] })).statusCode).toBe(200)
    await registry.grant(await didOf(ctx, agent.customerId), ['registrar'])
    return { household, agent }
  }

  it('registers a household\'s stove by an agent; the household sees it pending, then verified', async () => {
    const { household, agent } = await people()
    const householdDid = await didOf(ctx, household.customerId)
    const agentDid = await didOf(ctx, agent.customerId)
    expect(householdDid).toMatch(/^did:key:z6Mk/)

    const { phone: field, welcome } = await logIn(ctx, agent.customerId)
    expect(welcome.screen).toBe('Login successful.\nWelcome, Field Agent Wekesa\n1. Know More\n2. My Account\n' +
      '3. Language/Lugha\n4. My stoves\n5. Ask the assistant\n6. Register a stove\n7. Check a stove\n*. Exit')
    expect((await field.send('6')).screen).toBe('Enter the stove serial number:\n0. Back')
    expect((await field.send('sn 0042')).screen)
      .toBe('Enter the household\'s Customer ID or phone number (with country code):\n0. Back')
    expect((await field.send(household.phone.phoneNumber.slice(1))).screen)
      .toBe(`Register stove SN0042 for Achieng Otieno (${household.customerId})?\n1. Confirm\n0. Back`)
    const done = await field.send('1')
    expect(done.screen).toMatch(/^Registered stove SN0042\.\nID: did:ixo:entity:[0-9a-f]{6}\.\.\.[0-9a-f]{4}\n/)
    expect(done.screen).toMatch(/\nStatus: pending verification\.\n1\. Register another\n0\. Main menu$/)

    const [stove] = await registry.bySerial('SN0042')
    expect(stove).toMatchObject({
      type: 'asset/device',
      class: project.protocol,
      externalId: 'SN0042',
      controllers: [householdDid],
      links: { parent: project.project },
      createdBy: { account: agentDid, service: null },
      status: 'draft'
    })
    expect(done.screen).toContain(`ID: ${stove.did.slice(0, 21)}...${stove.did.slice(-4)}`)
    // The household gets a receipt on its own phone (SMS is off here: the simulator lists what would go).
    const sms = (await ctx.app.inject({ method: 'GET', url: '/simulator/sms' })).json()
    const receipts = sms.messages.filter((m: { kind: string }) => m.kind === 'registration')
    expect(receipts).toEqual([
      expect.objectContaining({
        to: household.phone.phoneNumber,
        text: `Clean Cooking: stove SN0042 is registered to you (${stove.did.slice(0, 21)}...` +
          `${stove.did.slice(-4)}), pending verification.`
      })
    ])
    // Signed by the agent's own key, for the agent, addressed to the registry.
    expect((await registry.invocations()).filter((i) => i.capabilities[0]?.can === 'domain/create')).toEqual([
      { issuer: agentDid, audience: registry.did, capabilities: [{ can: 'domain/create', with: agentDid }] }
    ])

    await field.send('1')
    expect((await field.send('SN0042')).screen)
      .toBe('Serial SN0042 is already registered.\nEnter the stove serial number:\n0. Back')
    await field.send('*')
    await field.send('7')
    expect((await field.send('sn0042')).screen).toBe(
      `SN0042\nID: ${stove.did.slice(0, 21)}...${stove.did.slice(-4)}\nStatus: pending\n` +
      'Waiting to be submitted for verification.\n0. Back')
    expect((await field.send('0')).screen).toBe('Enter the stove serial number:\n0. Back')
    expect((await field.send('SN9999')).screen)
      .toBe('No stove is registered under serial SN9999.\nEnter the stove serial number:\n0. Back')

    const { phone: home, welcome: homeWelcome } = await logIn(ctx, household.customerId)
    expect(homeWelcome.screen).toBe('Login successful.\nWelcome, Achieng Otieno\n1. Know More\n2. My Account\n' +
      '3. Language/Lugha\n4. My stoves\n5. Ask the assistant\n*. Exit')
    expect((await home.send('6')).screen).toMatch(/^Invalid choice\./)
    expect((await home.send('4')).screen).toBe('My stoves\n1. SN0042 - pending\n0. Back')
    expect((await home.send('1')).screen).toMatch(/^SN0042\nID: .*\nStatus: pending\nWaiting to be submitted/)
    expect((await registry.invocations()).at(-1)).toEqual(
      { issuer: householdDid, audience: registry.did, capabilities: [{ can: 'domain/read', with: householdDid }] })

    await registry.verify(stove.did)
    const { phone: later } = await logIn(ctx, household.customerId)
    expect((await later.send('4')).screen).toBe('My stoves\n1. SN0042 - verified\n0. Back')
    const today = new Date().toISOString().slice(0, 10)
    expect((await later.send('1')).screen)
      .toMatch(new RegExp(`\\nStatus: verified\\nVerified on ${today}\\.\\n0\\. Back$`))
    expect((await later.send('0')).screen).toBe('My stoves\n1. SN0042 - verified\n0. Back')

    // The assistant reads the registry as the household too (the read-only delegation of its oracle session).
    await later.send('*')
    await later.send('5')
    const pages = [await later.send(`Is ${stove.did as string} verified?`)]
    while (pages.at(-1)!.screen.includes('\n98. More\n')) pages.push(await later.send('98'))
    const answer = pages.map((page) => page.screen.replace(/\n(98\. More\n)?1\. Ask a follow-up\n0\. Back$/, ''))
      .join(' ')
    expect(answer).toMatch(/^Hi! Here is what the tools reported\. get_domain: \{/)
    expect(answer).toContain(`"did":"${stove.did as string}"`)
    expect(answer).toMatch(/"status": ?"verified"/)
  })

  it('checks a serial where the registry keeps it unique: per type within the project\'s organisation', async () => {
    const { household, agent } = await people()
    // A device of another class in the organisation holds SN-ORG1; one outside any organisation holds SN-ORG2.
    await registry.register({
      type: 'Device',
      class: 'did:ixo:protocol/other-stove',
      externalId: 'SN-ORG1',
      links: { organisation: ofOrganisation.organisation }
    })
    await registry.register({
      type: 'Device', class: project.protocol, externalId: 'SN-ORG2', links: { parent: project.project }
    })
    const { phone } = await logIn(ctx, agent.customerId, ORGANISATION_CODE)
    await phone.send('6')
    expect((await phone.send('SN-ORG1')).screen)
      .toBe('Serial SN-ORG1 is already registered.\nEnter the stove serial number:\n0. Back')
    expect((await phone.send('SN-ORG2')).screen)
      .toBe('Enter the household\'s Customer ID or phone number (with country code):\n0. Back')
    await phone.send(household.customerId)
    expect((await phone.send('1')).screen).toMatch(/^Registered stove SN-ORG2\./)
    const twins = await registry.bySerial('SN-ORG2')
    expect(twins.map((d) => d.organisation).sort()).toEqual([null, ofOrganisation.organisation].sort())

    // In the programme without an organisation, SN-ORG2 is taken by its own device and SN-ORG1 is free.
    const { phone: other } = await logIn(ctx, agent.customerId)
    await other.send('6')
    expect((await other.send('SN-ORG2')).screen).toMatch(/^Serial SN-ORG2 is already registered\./)
    expect((await other.send('SN-ORG1')).screen).toMatch(/^Enter the household's Customer ID/)
  })

  it('shows the lists in Kiswahili, and an empty list says so', async () => {
    const { customerId } = await createAccount(ctx, { name: 'Neema Mwangi', pin: PIN })
    const { phone } = await logIn(ctx, customerId)
    await phone.send('3')
    await phone.send('2')
    expect((await phone.send('4')).screen).toBe('Orodha ya majiko\nBado hakuna majiko kwenye akaunti yako.\n0. Rudi')
  })

  it('finds the household by Customer ID, refusing unknown ids and numbers without a country code', async () => {
    const { household, agent } = await people()
    const { phone } = await logIn(ctx, agent.customerId)
    await phone.send('6')
    await phone.send('SN-0777')
    expect((await phone.send('C00000000')).screen).toMatch(/^No account has that Customer ID or phone number\./)
    expect((await phone.send('0712345678')).screen).toMatch(/^Enter a Customer ID \(e\.g\. C1A2B3C4D\)/)
    expect((await phone.send(household.customerId.toLowerCase())).screen)
      .toBe(`Register stove SN-0777 for Achieng Otieno (${household.customerId})?\n1. Confirm\n0. Back`)
  })

  it('tells an agent without the registry\'s registrar role that they cannot register yet', async () => {
    const { household } = await people()
    const newcomer = await createAccount(ctx, { name: 'New Agent', pin: PIN })
    await putRoles(ctx, newcomer.customerId, { roles: ['agent'] })
    const { phone, welcome } = await logIn(ctx, newcomer.customerId)
    expect(welcome.screen).toMatch(/\n3\. Language\/Lugha\n4\. Ask the assistant\n5\. Register a stove\n6\. Check/)
    await phone.send('5')
    await phone.send('SN-0888')
    await phone.send(household.customerId)
    expect((await phone.send('1')).screen).toMatch(
      /^You cannot register stoves yet\. Please ask your programme to enable you\.\nWelcome, New Agent\n/)
    expect(await registry.bySerial('SN-0888')).toEqual([])
  })

  it('asks the oracle as the account, one oracle session per USSD session, and pages the answer', async () => {
    const { customerId } = await createAccount(ctx, { name: 'Achieng Otieno', pin: PIN })
    const { phone } = await logIn(ctx, customerId)
    expect((await phone.send('5')).screen).toBe('Type your question (up to 160 characters):\n0. Back')
    const question = 'How often should I clean the chimney of my improved cookstove, and what should I use so ' +
      'that it keeps burning well and saves charcoal for the family?'
    expect(question.length).toBe(149)
    const first = await phone.send(question)
    expect(first.screen).toMatch(/^Hi! You said: "How often should I clean/)
    expect(first.screen).toMatch(/\n98\. More\n1\. Ask a follow-up\n0\. Back$/)
    const second = await phone.send('98')
    expect(second.screen)
      .toMatch(/I am the offline agent, so I answer without a language model\.\n1\. Ask a follow-up\n0\. Back$/)
    const shown = [first, second].map((page) =>
      page.screen.replace(/\n(98\. More\n)?1\. Ask a follow-up\n0\. Back$/, ''))
    expect(shown.join(' ')).toBe(`Hi! You said: "${question}". I am the offline agent, so I answer without a ` +
      'language model.')
    // Nothing is left of the 182 characters the aggregator's text may hold for a second question.
    expect((await phone.send('1')).body).toBe('END This session has no room left for a question. Please dial again.')

    const { phone: again } = await logIn(ctx, customerId)
    await again.send('5')
    expect((await again.send('Hello')).screen).toMatch(/^Hi! You said: "Hello"\./)
    expect((await again.send('1')).screen).toMatch(/^Type your question \(up to \d+ characters\):/)
    expect((await again.send('Thanks')).screen).toMatch(/^Hi! You said: "Thanks"\./)

    // Every turn ran as the account; the follow-up in its USSD session's oracle session, the first in another.
    const did = await didOf(ctx, customerId)
    const turns = oracle.turns.filter((turn) => turn.did === did)
    expect(turns).toHaveLength(3)
    expect(turns[1]!.sessionId).not.toBe(turns[0]!.sessionId)
    expect(turns[2]!.sessionId).toBe(turns[1]!.sessionId)
  })

  it('shows a slow oracle\'s holding screen within the hop deadline and the answer on a later hop', async () => {
    const { customerId } = await createAccount(ctx, { name: 'Achieng Otieno', pin: PIN })
    const { phone } = await logIn(ctx, customerId)
    await phone.send('5')
    const started = Date.now()
    const holding = await phone.send('slow_stove_tips please')
    expect(Date.now() - started).toBeLessThan(3000)
    expect(holding.screen).toBe('Your answer is being prepared.\n1. Check\n0. Back')
    expect((await phone.send('1')).screen)
      .toBe('Not ready yet. Please check again in a moment.\nYour answer is being prepared.\n1. Check\n0. Back')
    // Back at the main menu and into the assistant again: the question is still being answered.
    await phone.send('0')
    expect((await phone.send('5')).screen).toBe('Your answer is being prepared.\n1. Check\n0. Back')
    release('Let the stove cool, then brush the chimney.')
    let answer = await phone.send('1')
    for (let i = 0; i < 50 && answer.screen.startsWith('Not ready'); i++) {
      await new Promise((resolve) => setTimeout(resolve, 50))
      answer = await phone.send('1')
    }
    expect(answer.screen).toBe('Hi! Here is what the tools reported. slow_stove_tips: Let the stove cool, then ' +
      'brush the chimney.\n1. Ask a follow-up\n0. Back')
  })

  it('never acts before a PIN login: the menus are not there', async () => {
    const phone = new Dialer(ctx.app)
    const welcome = await phone.dial()
    expect(welcome.screen).toBe('Welcome to Clean Cooking\n1. Know More\n2. Account\n3. Language/Lugha\n*. Exit')
    const before = (await registry.invocations()).length
    expect((await phone.send('4')).screen).toMatch(/^Invalid choice\./)
    expect((await new Dialer(ctx.app).dial('5')).screen).toMatch(/^Invalid choice\./)
    expect(await registry.invocations()).toHaveLength(before)
  })
})

describe('the platform menus when domain-api or the oracle is down', () => {
  let ctx: TestContext
  beforeAll(async () => {
    ctx = await setupApp({
      USSD_PROGRAMMES_FILE: await programmeFile('did:ixo:entity:5d8a2c9f0b7e41a3b6c2d9e8f7a6b5c4', 'down.json'),
      DOMAIN_API_URL: await deadUrl(),
      ORACLE_URL: await deadUrl()
    })
  })
  afterAll(async () => { await ctx?.close() })

  it('ends My stoves, Register and Ask with a clear text, and the gateway keeps serving', async () => {
    const { customerId } = await createAccount(ctx, { pin: PIN })
    await putRoles(ctx, customerId, { roles: ['household', 'agent'] })
    expect((await (await logIn(ctx, customerId)).phone.send('4')).body)
      .toBe('END Service unavailable right now. Please try again later.')
    const register = (await logIn(ctx, customerId)).phone
    await register.send('6')
    expect((await register.send('SN-1')).body).toBe('END Service unavailable right now. Please try again later.')
    const ask = (await logIn(ctx, customerId)).phone
    await ask.send('5')
    expect((await ask.send('Is my stove verified?')).body)
      .toBe('END The assistant is unavailable right now. Please try again later.')
    expect((await new Dialer(ctx.app).dial()).screen).toMatch(/^Welcome to Clean Cooking/)
  })
})
