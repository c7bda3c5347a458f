import { defineError } from '@impact/service-kit'

/** Coded errors of domain-api; every code starts with `DOMAIN_`. */
export const DOMAIN_NOT_FOUND = defineError('DOMAIN_NOT_FOUND', '%s not found', 404)
