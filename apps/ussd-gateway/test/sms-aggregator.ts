import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

/** One request the aggregator received, as its bulk SMS API reads it. */
export interface ReceivedSms {
  apiKey: string | undefined
  accept: string | undefined
  username: string | null
  to: string | null
  message: string | null
  from: string | null
}

/** How the aggregator answers a send: accepted, an HTTP failure, a per-recipient code, or no answer at all. */
export type SmsAnswer =
  | { kind: 'ok' }
  | { kind: 'http', status: number }
  | { kind: 'recipient', statusCode: number, status: string }
  | { kind: 'hang' }

export interface SmsAggregator {
  /** Base URL (SMS_BASE_URL). */
  url: string
  received: ReceivedSms[]
  /** What the requests to `to` get, in order; once used up, `ok`. */
  script: (to: string, answers: SmsAnswer[]) => void
  /** Requests received for `to` so far. */
  to: (to: string) => ReceivedSms[]
  close: () => Promise<void>
}

/**
 * A loopback server speaking Africa's Talking's bulk SMS API (`POST /version1/messaging`, form body,
 * `apiKey` header, JSON `SMSMessageData`), refusing a wrong key as the real one does (401).
 */
export async function startSmsAggregator (apiKey: string): Promise<SmsAggregator> {
  const received: ReceivedSms[] = []
  const scripts = new Map<string, SmsAnswer[]>()
  const hanging = new Set<ServerResponse>()
  let sent = 0

  const answer = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body))
  }

  async function handle (req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    if (req.method !== 'POST' || req.url !== '/version1/messaging') return answer(res, 404, { error: 'not found' })
    if (req.headers.apikey !== apiKey) return answer(res, 401, 'The supplied authentication is invalid')
    const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'))
    const sms: ReceivedSms = {
      apiKey: req.headers.apikey,
      accept: req.headers.accept,
      username: form.get('username'),
      to: form.get('to'),
      message: form.get('message'),
      from: form.get('from')
    }
    received.push(sms)
    const next = scripts.get(sms.to ?? '')?.shift() ?? { kind: 'ok' }
    if (next.kind === 'hang') {
      hanging.add(res)
      return
    }
    if (next.kind === 'http') return answer(res, next.status, { error: 'failure' })
    const recipient = next.kind === 'ok'
      ? { statusCode: 101, status: 'Success', number: sms.to, cost: 'KES 0.8000', messageId: `ATXid_${++sent}` }
      : { statusCode: next.statusCode, status: next.status, number: sms.to, cost: '0', messageId: 'None' }
    answer(res, 201, { SMSMessageData: { Message: 'Sent to 1/1 Total Cost: KES 0.8000', Recipients: [recipient] } })
  }

  const server = createServer((req, res) => { handle(req, res).catch(() => res.destroy()) })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    script: (to, answers) => { scripts.set(to, [...answers]) },
    to: (to) => received.filter((sms) => sms.to === to),
    close: async () => {
      for (const res of hanging) res.destroy()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  }
}
