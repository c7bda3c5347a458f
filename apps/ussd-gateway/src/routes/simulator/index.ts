import { Type } from '@sinclair/typebox'
import type { FastifyPluginAsyncTypebox } from '@impact/service-kit'
import type { Config } from '../../config.ts'
import type { ProgrammeCatalog } from '../../services/programmes.ts'
import type { RecentSms } from '../../services/sms/recent-sms.ts'
import { simulatorHtml } from './page.ts'
import { simulatorJs } from './script.ts'
import { simulatorCss } from './style.ts'

// Everything is served from this origin and nothing inline runs, so the policy can be this strict.
const CSP = [
  "default-src 'none'", "script-src 'self'", "style-src 'self'", "connect-src 'self'", "img-src 'self' data:",
  "base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'"
].join('; ')

const asset = (type: string, body: string) => ({ type, body })

const RecentSmsSchema = Type.Object({
  enabled: Type.Boolean({ description: 'False when nothing is kept here (production)' }),
  messages: Type.Array(Type.Object({
    at: Type.String({ format: 'date-time' }),
    to: Type.String(),
    kind: Type.String({ description: 'customerId, temporaryPin, lockout, …' }),
    text: Type.String(),
    status: Type.Union([Type.Literal('sent'), Type.Literal('failed'), Type.Literal('off')], {
      description: '`off`: SMS_PROVIDER is unset, so the text was not sent'
    })
  }), { description: 'Newest first' })
})

const ProgrammeListSchema = Type.Object({
  programmes: Type.Array(Type.Object({
    serviceCode: Type.String({ description: 'The code dialled, e.g. `*384#`' }),
    name: Type.String({ description: 'The programme\'s name on its welcome screen' })
  }), { description: 'In the order of the programmes file; empty without one (every code gets the default)' })
})

export interface SimulatorRoutesOptions {
  config: Config
  /** The programmes per service code, offered by the page's service code picker. */
  programmes: Pick<ProgrammeCatalog, 'codes' | 'of'>
  /** The SMS this process settled lately; absent in production, where texts (temporary PINs) are not kept. */
  recentSms?: RecentSms | undefined
}

/**
 * `GET /simulator`: a feature-phone page that drives `/api/ussd` like an aggregator, for demos
 * and manual testing. Off in production unless SIMULATOR_ENABLED=true.
 */
export const simulatorRoutes: FastifyPluginAsyncTypebox<SimulatorRoutesOptions> = async (app, options) => {
  const { config, recentSms, programmes } = options
  const assets: Record<string, { type: string, body: string }> = {
    '/simulator': asset('text/html; charset=utf-8', simulatorHtml(config.USSD_APP_NAME)),
    '/simulator/app.js': asset('text/javascript; charset=utf-8', simulatorJs),
    '/simulator/style.css': asset('text/css; charset=utf-8', simulatorCss)
  }
  for (const [url, { type, body }] of Object.entries(assets)) {
    app.get(url, {
      schema: {
        tags: ['simulator'],
        summary: url === '/simulator' ? 'Feature-phone simulator page' : 'Simulator asset',
        response: { 200: { description: type, content: { [type.split(';')[0] ?? type]: { schema: Type.String() } } } }
      }
    }, async (_request, reply) => await reply
      .type(type)
      .header('content-security-policy', CSP)
      .header('cache-control', 'no-cache')
      .header('referrer-policy', 'no-referrer')
      .send(body))
  }

  app.get('/simulator/sms', {
    schema: {
      tags: ['simulator'],
      summary: 'SMS the gateway sent lately (development)',
      description: 'The last 20 SMS this process sent, gave up or, with SMS off, would have sent; the page shows ' +
        'them beside the phone. Never kept in production.',
      response: { 200: RecentSmsSchema }
    }
  }, async (_request, reply) => {
    reply.header('cache-control', 'no-store')
    return { enabled: recentSms !== undefined, messages: recentSms?.list() ?? [] }
  })

  app.get('/simulator/programmes', {
    schema: {
      tags: ['simulator'],
      summary: 'Service codes of the configured programmes (simulator)',
      description: 'The page\'s service code picker lists them, so any programme can be dialled. Read again on ' +
        'each request: a reloaded programmes file shows at once.',
      response: { 200: ProgrammeListSchema }
    }
  }, async (_request, reply) => {
    reply.header('cache-control', 'no-store')
    const listed = programmes.codes().map((serviceCode) => ({ serviceCode, name: programmes.of(serviceCode).name }))
    return { programmes: listed }
  })
}
