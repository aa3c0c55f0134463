import { OpenAPIHono } from '@hono/zod-openapi'
import type { AppEnv } from '../app-env.ts'
import { fieldErrorBody } from './errors.ts'
import { strictQueries } from './strict-query.ts'
import { zodErrorsToFields } from './validation.ts'

/**
 * An app of routes declared with zod schemas, which both validate the request and make the OpenAPI
 * document: the service's root (app.ts) and each module's routes (modules/<domain>/routes.ts), which
 * app.ts mounts at the root. A request its schemas refuse is a 400 `{detail, errors}`, and a query
 * parameter no schema declares is refused too (lib/strict-query.ts).
 */
export function openApiApp(): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>({
    strict: false, // every path answers with and without the trailing slash
    defaultHook: (result, c) => {
      if (!result.success) {
        return c.json(fieldErrorBody(zodErrorsToFields(result.error)), 400)
      }
    },
  })
  strictQueries(app)
  return app
}
