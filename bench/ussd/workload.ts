/** A live session's text at depth 3: Account > Create account > name (the email prompt). */
export const DEPTH_3 = '2*2*Jane Doe'
export const EMAIL_PROMPT = 'CON Enter your email address (optional):\n00. Skip\n0. Back'
export const PIN_PROMPT = 'CON Create a 5-digit PIN:\n0. Back'
export const MAIN_MENU = 'CON Welcome to Impact Platform\n1. Know More\n2. Account\n3. Language/Lugha\n*. Exit'

/**
 * The next input on a session at the email or PIN prompt: skip the email (to the PIN prompt) or go
 * back (to the email prompt), so a session can take many real hops without ending.
 */
export const nextInput = (hops: number) => (hops % 2 === 0 ? '00' : '0')
export const screenAfter = (hops: number) => (hops % 2 === 0 ? PIN_PROMPT : EMAIL_PROMPT)

/**
 * The aggregator's form fields for session number `i`, each with its own phone number. Session ids
 * are shaped like Africa's Talking's (`ATUid_` and 32 hex digits), so sessions cost what real ones do.
 */
export const sessionFields = (i: number, text: string) => ({
  sessionId: `ATUid_${i.toString(16).padStart(32, '0')}`,
  serviceCode: '*384*123#',
  phoneNumber: `+2547${String(i).padStart(8, '0')}`,
  networkCode: '63902',
  text
})
