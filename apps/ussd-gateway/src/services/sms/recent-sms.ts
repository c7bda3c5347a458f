import type { SmsRecord } from './sms-queue.ts'

/**
 * The last SMS this process settled, newest first, for the simulator page in development: it shows the
 * texts (temporary PINs included), so it never exists in production. Each replica keeps its own.
 */
export function createRecentSms (capacity = 20) {
  const entries: SmsRecord[] = []
  return {
    add (sms: SmsRecord): void {
      entries.unshift(sms)
      if (entries.length > capacity) entries.length = capacity
    },
    list: (): SmsRecord[] => [...entries]
  }
}

export type RecentSms = ReturnType<typeof createRecentSms>
