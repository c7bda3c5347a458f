/** The cumulative text of the bench path: Account > Create account > name > skip email (depth 4). */
export const depthText = (depth: number) => ['2', '2', 'Jane Doe', '00'].slice(0, depth).join('*')

/** The aggregator's form fields for session number `i` (each session has its own phone number). */
export const sessionFields = (i: number, text: string) => ({
  sessionId: `bench-${i}`,
  serviceCode: '*384*123#',
  phoneNumber: `+2547${String(i).padStart(8, '0')}`,
  networkCode: '63902',
  text
})
