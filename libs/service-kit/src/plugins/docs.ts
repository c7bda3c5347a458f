import swagger, { type FastifyDynamicSwaggerOptions } from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import type { FastifyInstance } from 'fastify'
import { ErrorBodySchema } from '@impact/schemas'

export interface DocsOptions {
  title: string
  version: string
  description?: string
  /** OpenAPI security schemes of the app (API keys, UCAN bearer…). */
  securitySchemes?: NonNullable<NonNullable<FastifyDynamicSwaggerOptions['openapi']>['components']>['securitySchemes']
  /** Paths left out of the document (e.g. internal probes). */
  hide?: (url: string) => boolean
  /** Rewrites a copy of the document on every request (routes an app serves without Fastify routes). */
  transformSpecification?: (document: Record<string, unknown>) => Record<string, unknown>
}

/** OpenAPI 3 generated from the route schemas, served with Swagger UI at `/docs`. */
export async function registerDocs (app: FastifyInstance, options: DocsOptions) {
  app.addSchema(ErrorBodySchema)
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: options.title,
        version: options.version,
        ...(options.description !== undefined ? { description: options.description } : {})
      },
      components: { ...(options.securitySchemes !== undefined ? { securitySchemes: options.securitySchemes } : {}) }
    },
    // Shared schemas appear under their own names (ErrorBody, ChatSession…) instead of def-0, def-1…
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) =>
        typeof json.$id === 'string' && /^[A-Za-z0-9._-]+$/.test(json.$id) ? json.$id : `def-${i}`
    },
    ...(options.hide !== undefined
      ? {
          transform: ({ schema, url }) => ({
            schema: options.hide?.(url) === true ? { ...schema, hide: true } : schema,
            url
          })
        }
      : {})
  })
  const transform = options.transformSpecification
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    staticCSP: true,
    ...(transform !== undefined
      ? { transformSpecification: (document: Readonly<Record<string, unknown>>) => transform({ ...document }) }
      : {})
  })
}
