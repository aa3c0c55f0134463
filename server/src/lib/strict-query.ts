import { z, type OpenAPIHono } from '@hono/zod-openapi'
import type { AppEnv } from '../app-env.ts'
import { fieldErrorBody } from './errors.ts'
import { unknownParameter } from './validation.ts'

/**
 * Strict query parameters on EVERY route (issue 22): a name the route does not declare is refused
 * with 400 `unknown_parameter` rather than ignored (`/api/plans/?foo=1`, a misspelt filter), and the
 * declared names are the route's OpenAPI query schema, which /api/schema/ publishes. Each route is
 * registered through `app.openapi` with its query schema made strict — an empty one for a route that
 * takes none — so no route can be added that skips the check.
 */
export const NO_QUERY = z.object({}).strict()

type AnyObject = z.ZodObject<z.ZodRawShape>

const isStrict = (schema: AnyObject) =>
  (schema._zod.def.catchall as { _zod?: { def: { type: string } } } | undefined)?._zod?.def.type === 'never'

export function strictQueries(app: OpenAPIHono<AppEnv>): void {
  const register = app.openapi
  app.openapi = ((
    route: Parameters<typeof register>[0],
    handler: Parameters<typeof register>[1],
    hook?: Parameters<typeof register>[2],
  ) => {
    const query = route.request?.query as AnyObject | undefined
    const strict = query === undefined ? NO_QUERY : isStrict(query) ? query : query.strict()
    return register({ ...route, request: { ...route.request, query: strict } }, handler, hook)
  }) as typeof register
}

/** For the few routes outside the OpenAPI registry (/api/schema/): a 400 body when the query names anything. */
export function unknownQueryBody(url: string) {
  const names = [...new Set(new URL(url).searchParams.keys())]
  if (!names.length) return null
  return fieldErrorBody(Object.fromEntries(names.map((n) => [n, [unknownParameter(n)]])))
}
