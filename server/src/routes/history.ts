import type { OpenAPIHono } from '@hono/zod-openapi'
import type { AppEnv } from '../app-env.ts'

export function registerHistoryRoutes(app: OpenAPIHono<AppEnv>) {
  void app // TODO: not written yet
}
