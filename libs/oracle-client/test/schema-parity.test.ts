import { describe, expect, it } from 'vitest'
import * as shared from '@impact/schemas'
// The runtime still declares its own copies of these schemas (tests only reach them by path).
import * as delegation from '../../../apps/oracle-runtime/src/schemas/delegation.ts'
import * as messages from '../../../apps/oracle-runtime/src/schemas/messages.ts'
import * as sessions from '../../../apps/oracle-runtime/src/schemas/sessions.ts'
import * as preferences from '../../../apps/oracle-runtime/src/runtime-plugins/user-preferences/schema.ts'

// Until the runtime imports them from @impact/schemas, its schemas and the client's must stay identical.
const pairs: Array<[string, unknown, unknown]> = [
  ['SendMessageSchema', messages.SendMessageSchema, shared.SendMessageSchema],
  ['MessageDtoSchema', messages.MessageDtoSchema, shared.MessageDtoSchema],
  ['SendMessageReplySchema', messages.SendMessageReplySchema, shared.SendMessageReplySchema],
  ['LegacyHistorySchema', messages.LegacyHistorySchema, shared.LegacyHistorySchema],
  ['HistoryQuerySchema', messages.HistoryQuerySchema, shared.HistoryQuerySchema],
  ['HistoryPageSchema', messages.HistoryPageSchema, shared.HistoryPageSchema],
  ['AbortBodySchema', messages.AbortBodySchema, shared.AbortBodySchema],
  ['AbortReplySchema', messages.AbortReplySchema, shared.AbortReplySchema],
  ['RunReplySchema', messages.RunReplySchema, shared.RunReplySchema],
  ['PaymentRequiredSchema', messages.PaymentRequiredSchema, shared.PaymentRequiredSchema],
  ['SessionIdSchema', sessions.SessionIdSchema, shared.SessionIdSchema],
  ['ChatSessionSchema', sessions.ChatSessionSchema, shared.ChatSessionSchema],
  ['SessionListQuerySchema', sessions.SessionListQuerySchema, shared.SessionListQuerySchema],
  ['SessionListSchema', sessions.SessionListSchema, shared.SessionListSchema],
  ['SessionDeletedSchema', sessions.SessionDeletedSchema, shared.SessionDeletedSchema],
  ['StoreDelegationSchema', delegation.StoreDelegationSchema, shared.StoreDelegationSchema],
  ['StoreDelegationReplySchema', delegation.StoreDelegationReplySchema, shared.StoreDelegationReplySchema],
  ['DelegationStatusSchema', delegation.DelegationStatusSchema, shared.DelegationStatusSchema],
  ['RevokeReplySchema', delegation.RevokeReplySchema, shared.RevokeReplySchema],
  ['UserPreferencesSchema', preferences.UserPreferencesSchema, shared.UserPreferencesSchema],
  ['SetPreferencesArgsSchema', preferences.SetPreferencesArgsSchema, shared.SetPreferencesArgsSchema]
]

describe('wire schemas shared with the runtime', () => {
  it.each(pairs)('%s is the runtime\'s own', (_name, server, client) => {
    expect(JSON.parse(JSON.stringify(client))).toEqual(JSON.parse(JSON.stringify(server)))
  })
})
