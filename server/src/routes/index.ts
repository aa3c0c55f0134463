import type { OpenAPIHono } from '@hono/zod-openapi'
import type { AppEnv } from '../app-env.ts'
import type { Config } from '../config.ts'
import { accountRoutes } from '../modules/account/routes.ts'
import { authRoutes } from '../modules/auth/routes.ts'
import { capabilityRoutes } from '../modules/capabilities/routes.ts'
import { exportRoutes } from '../modules/exports/routes.ts'
import { geoRoutes } from '../modules/geo/routes.ts'
import { historyRoutes } from '../modules/history/routes.ts'
import { mapRoutes } from '../modules/map/routes.ts'
import { apiKeyRoutes } from '../modules/keys/routes.ts'
import { listRoutes } from '../modules/lists/routes.ts'
import { pageSnapshotRoutes } from '../modules/page-snapshots/routes.ts'
import { planRoutes } from '../modules/plans/routes.ts'
import { searchRoutes } from '../modules/search/routes.ts'
import { testHookRoutes } from '../modules/test-hooks/routes.ts'
import { webhookRoutes } from '../modules/webhooks/routes.ts'

/**
 * The service's modules, each the routes of one domain as an app of its own, which app.ts mounts at
 * the root in this order: the router's and the OpenAPI document's (a module's own middleware, such
 * as the auth budgets, runs before its routes).
 */
export function apiModules(config: Pick<Config, 'testClock'>): OpenAPIHono<AppEnv>[] {
  return [
    authRoutes(),
    planRoutes(),
    accountRoutes(),
    apiKeyRoutes(),
    geoRoutes(),
    mapRoutes(),
    searchRoutes(),
    capabilityRoutes(),
    exportRoutes(),
    historyRoutes(),
    pageSnapshotRoutes(),
    webhookRoutes(),
    listRoutes(),
    // Only with LEADS_TEST_CLOCK=1: otherwise the hooks are neither served (404) nor listed in /api/schema/.
    ...(config.testClock ? [testHookRoutes()] : []),
  ]
}
