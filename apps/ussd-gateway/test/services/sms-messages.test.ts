import { describe, expect, it } from 'vitest'
import { fill } from '../../src/services/menu/i18n.ts'
import { MAX_DISPLAY_NAME, MAX_DOMAIN_WORD } from '../../src/schemas/programmes.ts'
import { gsm7Length, isGsm7 } from '../../src/services/screen.ts'
import { SMS_MESSAGES, type SmsMessageKey } from '../../src/services/sms/sms-messages.ts'

const SMS_CHARS = 160
const WAITS = [
  { key: 'time.minutes', params: { n: 90 } },
  { key: 'time.hours', params: { n: 720 } }
] as const

describe('SMS texts', () => {
  it('fit one SMS in both languages with the longest programme name, id and wait', () => {
    for (const language of ['en', 'sw'] as const) {
      for (const wait of WAITS) {
        for (const [key, template] of Object.entries(SMS_MESSAGES[language])) {
          const params = {
            app: 'A'.repeat(MAX_DISPLAY_NAME),
            id: 'C1A2B3C4D',
            pin: '12345',
            hours: 24,
            wait,
            one: 'W'.repeat(MAX_DOMAIN_WORD),
            serial: 'S'.repeat(40),
            did: 'd'.repeat(28)
          }
          const text = fill(language, template, params)
          expect(text, key).not.toMatch(/\{\w+\}/)
          expect(isGsm7(text), text).toBe(true)
          expect(gsm7Length(text), text).toBeLessThanOrEqual(SMS_CHARS)
        }
      }
    }
  })

  it('have the same placeholders in Kiswahili as in English', () => {
    const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort()
    for (const key of Object.keys(SMS_MESSAGES.en) as SmsMessageKey[]) {
      expect(placeholders(SMS_MESSAGES.sw[key]), key).toEqual(placeholders(SMS_MESSAGES.en[key]))
    }
  })
})
