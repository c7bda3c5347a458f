import { defineError } from '@impact/service-kit'

/** Coded errors of ussd-gateway; every code starts with `USSD_`. */
export const USSD_NOT_FOUND = defineError('USSD_NOT_FOUND', '%s not found', 404)
