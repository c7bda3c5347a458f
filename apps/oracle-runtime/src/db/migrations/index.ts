import type { MigrationSet } from '@impact/persistence'
import * as createChatTables from './2026_11_21_170000_create_chat_tables.ts'
import * as createCreditTables from './2026_11_21_170100_create_credit_tables.ts'

/** Frozen migrations of oracle-runtime, applied in name order. Never edit one that has shipped; add a new one. */
export const migrations: MigrationSet = {
  '2026_11_21_170000_create_chat_tables': createChatTables,
  '2026_11_21_170100_create_credit_tables': createCreditTables
}
