import type { OpenAPIHono } from '@hono/zod-openapi'
import type { AppEnv } from '../app-env.ts'
import type { Config } from '../config.ts'
import { registerAuthRoutes } from './auth.ts'
import { registerEmailChangeCancelRoutes } from './email-change-cancel.ts'
import { registerPlanRoutes } from './plans.ts'
import { registerProfileRoutes } from './profile.ts'
import { registerApiKeyRoutes } from './api-keys.ts'
import { registerGeoRoutes } from './geo.ts'
import { registerCategoryRoutes } from './categories.ts'
import { registerCapabilityRoutes } from './capabilities.ts'
import { registerCompanyRoutes } from './companies.ts'
import { registerFacetRoutes } from './facets.ts'
import { registerOwnedRoutes } from './owned.ts'
import { registerExportRoutes } from './exports.ts'
import { registerHistoryRoutes } from './history.ts'
import { registerSnapshotRoutes } from './snapshots.ts'
import { registerTestHookRoutes } from './test-hooks.ts'
import { registerWebhookRoutes } from './webhooks.ts'

export function registerRoutes(app: OpenAPIHono<AppEnv>, config: Pick<Config, 'testClock'>) {
  registerAuthRoutes(app)
  registerEmailChangeCancelRoutes(app)
  registerPlanRoutes(app)
  registerProfileRoutes(app)
  registerApiKeyRoutes(app)
  registerGeoRoutes(app)
  registerCategoryRoutes(app)
  registerFacetRoutes(app)
  registerOwnedRoutes(app)
  registerCompanyRoutes(app)
  registerCapabilityRoutes(app)
  registerExportRoutes(app)
  registerHistoryRoutes(app)
  registerSnapshotRoutes(app)
  registerWebhookRoutes(app)
  // Only with LEADS_TEST_CLOCK=1: otherwise the hooks are neither served (404) nor listed in /api/schema/.
  if (config.testClock) registerTestHookRoutes(app)
}
