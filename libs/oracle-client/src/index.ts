export { OracleClient, type OracleClientOptions, type MessageInput, type StreamOptions } from './client.ts'
export {
  MessageStream,
  foldTurnEvent,
  toolCallState,
  actionCallState,
  upsert,
  type TurnResult,
  type TurnOutcome,
  type ToolCallState,
  type ActionCallState,
  type StreamErrorPayload
} from './stream.ts'
export { OracleSocket, type SocketOptions, type SocketState } from './socket.ts'
export { SseParser, readSse, type SseFrame } from './sse.ts'
export {
  toOracleEvent,
  type OracleEvent,
  type OracleEventOf,
  type OracleEventListener,
  type OracleEventName,
  type OracleEventPayloads
} from './events.ts'
export {
  defineBrowserTool,
  defineAgAction,
  declareTools,
  declareActions,
  type BrowserTool,
  type AgAction,
  type AnyBrowserTool,
  type AnyAgAction,
  type ActionRenderProps,
  type ToolCallContext,
  type JsonSchema
} from './tools.ts'
export {
  CredentialCache,
  Credentials,
  type CredentialRequest,
  type MintCallback,
  type MintedCredential,
  type CredentialKind
} from './credentials/credentials.ts'
export { readUcanExpiry } from './credentials/ucan-expiry.ts'
export {
  OracleRequestError,
  OracleNetworkError,
  OracleStreamError,
  claimIdsOf,
  isDelegationReport,
  isDelegationPrompt,
  type ErrorBody
} from './errors.ts'
export type {
  ChatSession, SessionList, MessageDto, HistoryPage, SendMessage, SendMessageReply, DelegationStatus, UserPreferences,
  ModelInfo, ModelList, ToolDeclaration, ActionDeclaration, Attachment, ToolApproval, ApprovalStatus
} from '@impact/schemas'
