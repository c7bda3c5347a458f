import type { MigrationSet } from '@impact/persistence'

/** Frozen migrations of oracle-runtime, applied in name order. Never edit one that has shipped; add a new one. */
export const migrations: MigrationSet = {}
