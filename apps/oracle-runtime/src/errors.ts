import { defineError } from '@impact/service-kit'

/** Coded errors of oracle-runtime; every code starts with `ORACLE_`. */
export const ORACLE_NOT_FOUND = defineError('ORACLE_NOT_FOUND', '%s not found', 404)
