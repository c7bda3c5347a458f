import { Type } from '@sinclair/typebox'

/** The audit keys of an app that keeps an audit trail (spread into its `ConfigSchema`). */
export const auditConfigProperties = () => ({
  AUDIT_RETENTION_DAYS: Type.Integer({
    minimum: 1,
    maximum: 3650,
    default: 365,
    description: 'Days an audit record (logins, lockouts, key and role changes, votes, operator requests) is kept'
  })
})
