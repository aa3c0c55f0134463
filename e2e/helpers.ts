import { readdirSync, readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import AxeBuilder from '@axe-core/playwright'
import { parse } from 'csv-parse/sync'
import { stringify } from 'csv-stringify/sync'
import { expect, test, type APIRequestContext, type Page } from '@playwright/test'

/** Shared helpers of the end-to-end tests (real service, test clock on; see playwright.config.ts). */

export interface Account {
  email: string
  password: string
}

/** The DATA_DIR of the service the running test's lane talks to (playwright.config.ts). */
const dataDir = () => test.info().project.metadata.dataDir as string

export const uniqueEmail = (prefix = 'e2e') => `${prefix}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`

/** A fresh account per test keeps tests independent. */
export async function signUpViaApi(
  request: APIRequestContext,
  opts: {
    prefix?: string
    password?: string
    first_name?: string
    last_name?: string
    preferred_language?: string
    confirm?: boolean
  } = {},
): Promise<Account> {
  const { prefix, password = 'e2e-password-123', confirm = true, ...rest } = opts
  const account = { email: uniqueEmail(prefix), password }
  const res = await request.post('/api/auth/sign-up/', { data: { ...account, first_name: 'Test', last_name: 'Person', ...rest } })
  expect(res.status(), await res.text()).toBe(201)
  if (confirm) await confirmViaOutbox(request, account.email)
  return account
}

/** The token of the newest confirmation link mailed to `email` (sign-up or new address). */
export function confirmationLink(email: string): string {
  const { text } = newestOutboxMail(email)
  const m = /(\/confirm-email\?token=[A-Za-z0-9_-]+)/.exec(text)
  if (!m) throw new Error(`no confirmation link in the newest mail to ${email}`)
  return m[1]!
}

/** Confirms the address as its owner would, with the link from the outbox (no credits, no exports before). */
export async function confirmViaOutbox(request: APIRequestContext, email: string) {
  const token = new URL(confirmationLink(email), 'http://x').searchParams.get('token')
  const res = await request.post('/api/auth/confirm-email/', { data: { token } })
  expect(res.status(), await res.text()).toBe(200)
}

export async function loginViaApi(request: APIRequestContext, account: Account): Promise<{ access: string; refresh: string }> {
  const res = await request.post('/api/auth/login/', { data: { username: account.email, password: account.password } })
  expect(res.ok(), await res.text()).toBe(true)
  return (await res.json()) as { access: string; refresh: string }
}

/** A new login per call: the lane's shared test clock may have expired an older access token. */
export async function authHeaders(request: APIRequestContext, account: Account) {
  return { Authorization: `Bearer ${(await loginViaApi(request, account)).access}` }
}

export async function apiAs<T>(
  request: APIRequestContext,
  account: Account,
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  url: string,
  data?: unknown,
): Promise<{ status: number; body: T }> {
  const res = await request.fetch(url, { method, data, headers: await authHeaders(request, account) })
  const text = await res.text()
  return { status: res.status(), body: (text ? JSON.parse(text) : undefined) as T }
}

/** S2's test hook: set subscription credits, add a purchased lot, or switch plan, for `account`. */
export async function grantCredits(
  request: APIRequestContext,
  account: Account,
  grant: { subscription?: number; purchased?: number; purchased_expires_in_days?: number; plan_type?: string },
) {
  const res = await request.post('/api/_test/grant-credits/', { data: grant, headers: await authHeaders(request, account) })
  expect(res.ok(), await res.text()).toBe(true)
  return (await res.json()) as { remaining_credits: number; purchased_credits_available: number; plan_type: string | null }
}

/** Moves the service's clock forward (shared by every test of the lane, playwright.config.ts). */
export async function advanceClock(request: APIRequestContext, account: Account, seconds: number) {
  const res = await request.post('/api/_test/clock/', { data: { advance_seconds: seconds }, headers: await authHeaders(request, account) })
  expect(res.ok(), await res.text()).toBe(true)
  return (await res.json()) as { now: string }
}

/** Signs in through the sign-in page and waits until the dashboard shows the signed-in shell. */
export async function signInViaUi(page: Page, account: Account, { next }: { next?: string } = {}) {
  await page.goto(next ? `/sign-in?next=${encodeURIComponent(next)}` : '/sign-in')
  await page.getByLabel('Email').fill(account.email)
  await page.getByLabel('Password', { exact: true }).fill(account.password)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await expect(page).not.toHaveURL(/\/sign-in/)
  // the user menu button, whatever the language (the profile's language applies after sign-in)
  await expect(page.locator('header button[aria-controls="user-menu"]')).toBeVisible()
}

/** The newest mail of the service's local outbox (DATA_DIR/outbox/*.eml), optionally to one address. */
/**
 * Switches the language with the header's switcher: opens the disclosure (its name starts with
 * `label`, "Language" in English) and picks the language by its own name ("עברית", "ไทย").
 */
export async function chooseLanguage(page: Page, label: string | RegExp, ownName: string) {
  const toggle = page
    .getByRole('button', { name: label })
    .and(page.locator('[aria-controls][aria-expanded]'))
    .filter({ visible: true })
    .first()
  await toggle.click()
  await page.getByRole('list', { name: label }).filter({ visible: true }).getByRole('button', { name: ownName, exact: true }).click()
}

export function newestOutboxMail(to?: string): { file: string; text: string } {
  const dir = path.join(dataDir(), 'outbox')
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.eml') && (!to || f.includes(to.replace(/[^a-zA-Z0-9@._+-]/g, '_'))))
    .map((f) => path.join(dir, f))
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)
  if (!files[0]) throw new Error(`no mail${to ? ` to ${to}` : ''} in ${dir}`)
  return { file: files[0], text: readFileSync(files[0], 'utf8') }
}

/**
 * axe-core with the WCAG 2.0/2.1 A and AA rules, ready to `analyze()`. In the builder's legacy mode:
 * axe runs in the page itself, where the default runs it per frame and then gathers the results in a
 * new tab it opens for each check, which made a check about 1.7 times as long (23.0 s against 13.4 s
 * for 8 checks, docs/benchmarks.md). All it gives up is checking cross-origin frames, which the
 * dashboard has none of.
 */
export const axeBuilder = (page: Page) => new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).setLegacyMode()

/**
 * axe-core with the WCAG 2.0/2.1 A and AA rules: zero violations expected. `soft` records a failure
 * and lets the test go on, so one run lists the violations of every page.
 */
export async function axeCheck(page: Page, label = page.url(), { soft = false }: { soft?: boolean } = {}) {
  // colours read mid-transition are neither state's (a button fading from disabled to enabled measured
  // 3.17:1 in CI): judge the page once its finite transitions have ended (a spinner's never does)
  await page.evaluate(() =>
    Promise.all(
      document
        .getAnimations()
        .filter((a) => Number.isFinite(Number(a.effect?.getComputedTiming().endTime ?? Infinity)))
        .map((a) => a.finished.catch(() => undefined)),
    ),
  )
  const results = await axeBuilder(page).analyze()
  const summary = results.violations.map(
    (v) =>
      `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => `${n.target.join(' ')}${n.failureSummary ? ` [${n.failureSummary.replace(/\s+/g, ' ')}]` : ''}`).join(' | ')}`,
  )
  ;(soft ? expect.soft : expect)(summary, `axe violations on ${label}`).toEqual([])
}

/** A downloaded CSV file's records (csv-parse: quotes, doubled quotes, line breaks in fields, the BOM). */
export const parseCsv = (text: string): string[][] => parse(text, { bom: true, relax_column_count: true })

/** A CSV file of `rows` as a person's spreadsheet writes it (csv-stringify: cells quoted as they need, CRLF). */
export const toCsv = (rows: string[][], delimiter = ','): string => stringify(rows, { delimiter, record_delimiter: 'windows' })
