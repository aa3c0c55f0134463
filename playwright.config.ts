import { defineConfig, devices } from '@playwright/test'

/**
 * End-to-end tests drive the production build served by the real reference service, on a
 * throwaway embedded database with the test clock on. Browsers cannot be downloaded here:
 * Debian's Chromium is used (CHROMIUM_PATH overrides).
 */
const port = Number(process.env.E2E_PORT ?? 8123)
const baseURL = `http://127.0.0.1:${port}`
const dataDir = process.env.E2E_DATA_DIR ?? `.data/e2e-${port}`

export default defineConfig({
  testDir: 'e2e',
  timeout: 60_000,
  expect: { timeout: 10_000 },
  fullyParallel: false,
  // One worker: the service's test clock is shared by the whole run, and tests that move it (token
  // expiry, link expiry) must not pull the clock from under a test running beside them.
  workers: Number(process.env.E2E_WORKERS ?? 1),
  retries: 0,
  reporter: 'list',
  outputDir: `test-results/artifacts-${port}`,
  use: {
    baseURL,
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    },
  },
  projects: [{ name: 'chromium', use: { ...devices['Desktop Chrome'] } }],
  webServer: {
    // a fresh database every run: the script removes dataDir before starting
    command: `node scripts/e2e-server.mjs`,
    url: `${baseURL}/api/plans/`,
    timeout: 240_000,
    reuseExistingServer: false,
    env: {
      PORT: String(port),
      DATA_DIR: dataDir,
      LEADS_TEST_CLOCK: '1',
      SEED_COMPANIES: process.env.E2E_SEED_COMPANIES ?? '20000',
      RATE_LIMIT_PER_MINUTE: '100000',
      // the tests sign in far more often than a person, all from 127.0.0.1; the per-account sign-in
      // back-off (which the 429 test uses) does not depend on these
      ...Object.fromEntries(['LOGIN', 'REFRESH', 'SIGNUP', 'RESET', 'CONFIRM', 'FAILED_AUTH', 'PUBLIC'].map((k) => [`${k}_PER_MINUTE`, '100000'])),
      PAGE_SNAPSHOT_TOKEN: 'e2e-service-token',
      // webhooks to a receiver the test starts on 127.0.0.1 (development setting), retried and picked up quickly
      WEBHOOK_ALLOW_HTTP_LOOPBACK: '1',
      WEBHOOK_RETRY_BASE_MS: '1000',
      WEBHOOK_POLL_MS: '200',
      // a private build (`npx vite build --outDir …`) keeps a run safe from a rebuild of dist/
      DIST_DIR: process.env.DIST_DIR ?? 'dist',
    },
    stdout: 'ignore',
    stderr: 'pipe',
  },
})
