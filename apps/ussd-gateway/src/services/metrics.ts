import { Counter, Histogram, type Registry } from '@impact/service-kit'
import { STATES } from './menu/machine.ts'
import type { PinMiss } from './menu/pin-check.ts'
import type { EndedSummary } from './session-records.ts'
import type { SmsRecord } from './sms/sms-queue.ts'

const KIND = /^[a-zA-Z][a-zA-Z-]{0,31}$/

/**
 * The gateway's own metrics. Labels are bounded: end reasons, menu state names (unknown ones as `other`),
 * SMS kinds and outcomes; never phone numbers, session ids or input.
 */
export function createUssdMetrics (registry: Registry) {
  const registers = [registry]
  const started = new Counter({ name: 'ussd_sessions_started_total', help: 'USSD sessions opened', registers })
  const ended = new Counter({
    name: 'ussd_sessions_ended_total',
    help: 'USSD sessions recorded as ended, by reason: end (our END screen), user (the aggregator\'s ' +
      'end notice while it was open: abandoned), timeout (expired without an END)',
    labelNames: ['reason'] as const,
    registers
  })
  const hops = new Histogram({
    name: 'ussd_session_hops',
    help: 'Hops (screens answered) per ended session',
    buckets: [1, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30],
    registers
  })
  const dropoffs = new Counter({
    name: 'ussd_session_dropoffs_total',
    help: 'Sessions that ended by timeout or abandon, by the menu screen (state) they were left on',
    labelNames: ['screen', 'reason'] as const,
    registers
  })
  const pinFailures = new Counter({
    name: 'ussd_pin_failures_total',
    help: 'Wrong PINs entered (a lockout counts here too)',
    registers
  })
  const lockouts = new Counter({
    name: 'ussd_pin_lockouts_total',
    help: 'Accounts locked after too many wrong PINs',
    registers
  })
  const sms = new Counter({
    name: 'ussd_sms_total',
    help: 'SMS settled, by kind and outcome: sent, failed (given up after the retries) or off (SMS not configured)',
    labelNames: ['kind', 'outcome'] as const,
    registers
  })
  return {
    sessionStarted: () => { started.inc() },
    sessionEnded: (summary: EndedSummary) => {
      ended.inc({ reason: summary.reason })
      hops.observe(summary.hops)
      if (summary.reason === 'end') return
      const screen = Object.hasOwn(STATES, summary.state) ? summary.state : 'other'
      dropoffs.inc({ screen, reason: summary.reason === 'user' ? 'abandon' : 'timeout' })
    },
    pinMissed: (miss: PinMiss) => {
      if (miss === 'notCounted') return
      pinFailures.inc()
      if (miss === 'lockedNow') lockouts.inc()
    },
    smsSettled: (record: SmsRecord) => {
      sms.inc({ kind: KIND.test(record.kind) ? record.kind : 'other', outcome: record.status })
    }
  }
}

export type UssdMetrics = ReturnType<typeof createUssdMetrics>
