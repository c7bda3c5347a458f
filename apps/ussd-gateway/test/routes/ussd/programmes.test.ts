import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ConfigError } from '@impact/service-kit'
import { captureLogs } from '@impact/service-kit/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../../../src/config.ts'
import { createAccount, Dialer, fileApp, newPhone, type TestApp } from '../../helper.ts'

const PROJECT = 'did:ixo:entity:5d8a2c9f0b7e41a3b6c2d9e8f7a6b5c4'
const CLEAN_COOKING = {
  name: 'Clean Cooking',
  projectDid: PROJECT,
  languages: ['en', 'sw'],
  menus: ['myDomains', 'askAssistant', 'registerStove', 'checkStove'],
  supportPhone: '+254700000100',
  domainWord: { en: { one: 'stove', many: 'stoves' }, sw: { one: 'jiko', many: 'majiko' } }
}
const REWARDS = { name: 'Jiko Rewards', languages: ['sw'] }

const dir = await mkdtemp(join(tmpdir(), 'ussd-programmes-'))
const FILE = join(dir, 'programmes.json')
const YAML_FILE = join(dir, 'programmes.yaml')

/** Replaces the file at once (written aside, then renamed), as a deployment tool would. */
async function publish (file: string, text: string): Promise<void> {
  await writeFile(`${file}.next`, text)
  await rename(`${file}.next`, file)
}

const dial = async (app: TestApp, serviceCode: string, text = '') =>
  await new Dialer(app, { serviceCode }).dial(text)

/** Retries `check` until it passes or two seconds have gone (the file is read every 50 ms). */
async function eventually (check: () => Promise<void>): Promise<void> {
  const until = Date.now() + 2000
  for (;;) {
    try {
      await check()
      return
    } catch (error) {
      if (Date.now() > until) throw error
      await new Promise((resolve) => setTimeout(resolve, 25))
    }
  }
}

await publish(FILE, JSON.stringify({ programmes: { '*384#': CLEAN_COOKING, '*500#': REWARDS } }))
afterAll(async () => { await rm(dir, { recursive: true, force: true }) })

describe('programmes per service code (USSD_PROGRAMMES_FILE)', () => {
  const logs = captureLogs()
  const ctx = fileApp({ USSD_PROGRAMMES_FILE: FILE, USSD_PROGRAMMES_POLL_MS: '50', LOG_LEVEL: 'info' }, {
    logStream: logs.stream
  })

  it('shows each service code its own programme\'s name, and other codes the default', async () => {
    expect((await dial(ctx.app, '*384#')).body)
      .toBe('CON Welcome to Clean Cooking\n1. Know More\n2. Account\n3. Language/Lugha\n*. Exit')
    expect((await dial(ctx.app, '*500#')).body)
      .toBe('CON Karibu Jiko Rewards\n1. Fahamu Zaidi\n2. Akaunti\n3. Lugha/Language\n*. Toka')
    expect((await dial(ctx.app, '*999#')).screen).toMatch(/^Welcome to Impact Platform\n/)
    // Extra segments after a programme's code are shortcut inputs, within that programme.
    expect((await dial(ctx.app, '*384*1#')).screen).toMatch(/^Clean Cooking Information\n1\. About the service/)
    const bye = new Dialer(ctx.app, { serviceCode: '*500#' })
    await bye.dial()
    expect((await bye.send('*')).body).toBe('END Asante kwa kutumia Jiko Rewards. Kwaheri!')
  })

  it('offers only the programme\'s languages', async () => {
    const phone = new Dialer(ctx.app, { serviceCode: '*500#' })
    await phone.dial()
    expect((await phone.send('3')).screen).toBe('Chagua lugha / Choose language:\n2. Kiswahili\n0. Rudi')
    expect((await phone.send('1')).screen).toMatch(/^Chaguo si sahihi\./)
    expect((await phone.send('2')).screen).toMatch(/^Lugha imewekwa/)
    // The phone's choice holds where the programme offers it; English stays the first of *384#.
    expect((await new Dialer(ctx.app, { phoneNumber: phone.phoneNumber, serviceCode: '*384#' }).dial()).screen)
      .toMatch(/^Karibu Clean Cooking/)
    expect((await dial(ctx.app, '*384#')).screen).toMatch(/^Welcome to Clean Cooking/)
  })

  it('names the programme\'s support line when a phone already has its account', async () => {
    const phoneNumber = newPhone()
    await createAccount(ctx, { phoneNumber })
    expect((await new Dialer(ctx.app, { phoneNumber, serviceCode: '*384#' }).dial('2*2')).body)
      .toBe('END This phone number already has an account. Log in with your Customer ID. ' +
        'Forgot it? Choose 3 in the Account menu. Or call support on +254700000100.')
  })

  it('reloads a changed file without dropping live sessions, and keeps the programmes when it is invalid', async () => {
    const live = new Dialer(ctx.app, { serviceCode: '*384#' })
    expect((await live.dial()).screen).toMatch(/^Welcome to Clean Cooking/)
    const renamed = { ...CLEAN_COOKING, name: 'Clean Cooking Kenya' }
    const programmes = { '*384#': renamed, '*500#': REWARDS, '*600#': { name: 'Solar' } }
    await publish(FILE, JSON.stringify({ programmes }))
    await eventually(async () => {
      expect((await dial(ctx.app, '*600#')).screen).toMatch(/^Welcome to Solar\n/)
    })
    expect((await live.send('1')).screen).toMatch(/^Clean Cooking Kenya Information\n/)
    expect((await live.send('0')).screen).toMatch(/^Welcome to Clean Cooking Kenya\n/)
    expect(logs.text()).toMatch(/"serviceCodes":\["\*384#","\*500#","\*600#"\],"msg":"programmes reloaded"/)

    const tooLong = { ...renamed, name: 'A name far too long for USSD' }
    await publish(FILE, JSON.stringify({ programmes: { '*384#': tooLong } }))
    await eventually(async () => {
      expect(logs.text()).toContain('programmes file invalid, keeping the programmes in use')
    })
    expect(logs.text()).toContain('/programmes/*384#/name: Expected string length less or equal to 24')
    expect((await dial(ctx.app, '*600#')).screen).toMatch(/^Welcome to Solar\n/)
    expect((await live.send('1')).screen).toMatch(/^Clean Cooking Kenya Information\n/)
  })
})

describe('a YAML programmes file', () => {
  beforeAll(async () => {
    await publish(YAML_FILE, [
      'programmes:',
      '  "*384#":',
      '    name: Clean Cooking',
      `    projectDid: ${PROJECT}`,
      '    menus: [registerStove, checkStove]',
      '    supportPhone: "+254700000100"',
      '  "*500#": { name: Jiko Rewards, languages: [sw] }',
      '  "*384*5#": { name: Stove Five }',
      ''
    ].join('\n'))
  })
  const ctx = fileApp({ USSD_PROGRAMMES_FILE: YAML_FILE })

  it('is read like JSON', async () => {
    expect((await dial(ctx.app, '*384#')).screen).toMatch(/^Welcome to Clean Cooking\n/)
    expect((await dial(ctx.app, '*500#')).screen).toMatch(/^Karibu Jiko Rewards\n/)
  })

  it('takes a code that has its own programme as that programme, not a shortcut of a shorter code', async () => {
    expect((await dial(ctx.app, '*384*5#')).screen).toMatch(/^Welcome to Stove Five\n/)
    expect((await dial(ctx.app, '*384*5*1#')).screen).toMatch(/^Stove Five Information\n/)
    expect((await dial(ctx.app, '*384*1#')).screen).toMatch(/^Clean Cooking Information\n/)
  })
})

describe('an invalid programmes file at start', () => {
  const issuesOf = async (name: string, text: string | undefined): Promise<string[]> => {
    const file = join(dir, name)
    if (text !== undefined) await publish(file, text)
    try {
      loadConfig({ USSD_PROGRAMMES_FILE: file })
    } catch (error) {
      if (error instanceof ConfigError) return error.issues
      throw error
    }
    throw new Error('the file was accepted')
  }

  it('stops the configuration, listing every issue', async () => {
    const issues = await issuesOf('bad.json', JSON.stringify({
      programmes: {
        '384#': { name: 'No star' },
        '*384#': { name: 'Caf\u00e9 <Cooking>', menus: ['lottery'], languages: [], supportPhone: 'call us' },
        '*500#': { name: 'Stoves', menus: ['registerStove'] }
      }
    }))
    expect(issues.join('\n')).toContain('/programmes/384#')
    expect(issues.join('\n')).toContain('/programmes/*384#/name')
    expect(issues.join('\n')).toContain('/programmes/*384#/menus/0')
    expect(issues.join('\n')).toContain('/programmes/*384#/languages')
    expect(issues.join('\n')).toContain('/programmes/*384#/supportPhone')
    for (const issue of issues) expect(issue).toMatch(/^USSD_PROGRAMMES_FILE .*bad\.json: /)
    const withoutProject = { programmes: { '*500#': { name: 'Stoves', menus: ['registerStove'] } } }
    expect(await issuesOf('project.json', JSON.stringify(withoutProject)))
      .toEqual([expect.stringContaining('/programmes/*500#: menu registerStove needs a projectDid')])
  })

  it('says what is wrong with unparsable text, an unquoted YAML code or a missing file', async () => {
    expect(await issuesOf('broken.json', '{ "programmes": ')).toEqual([expect.stringMatching(/not valid JSON/)])
    expect(await issuesOf('alias.yaml', 'programmes:\n  *384#:\n    name: Clean Cooking\n'))
      .toEqual([expect.stringMatching(/not valid YAML: .*\(quote the service codes: "\*384#"\)$/)])
    expect(await issuesOf('absent.yaml', undefined))
      .toEqual([expect.stringMatching(/absent\.yaml: cannot be read \(ENOENT\)$/)])
  })
})
