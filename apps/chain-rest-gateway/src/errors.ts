import { defineError } from '@impact/service-kit'

/** Coded errors of chain-rest-gateway; every code starts with `CHAIN_`. */
export const CHAIN_NOT_FOUND = defineError('CHAIN_NOT_FOUND', '%s not found', 404)
