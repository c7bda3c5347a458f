/** The cumulative text of the bench path: Account > Create account > name > skip email (depth 4). */
export const depthText = (depth: number) => ['2', '2', 'Jane Doe', '00'].slice(0, depth).join('*')

/**
 * The aggregator's form fields for session number `i` (each session has its own phone number).
 * Session ids are shaped like Africa's Talking's (`ATUid_` and 32 hex digits), as in real traffic.
 */
export const sessionFields = (i: number, text: string) => ({
  sessionId: `ATUid_${i.toString(16).padStart(32, '0')}`,
  serviceCode: '*384*123#',
  phoneNumber: `+2547${String(i).padStart(8, '0')}`,
  networkCode: '63902',
  text
})
