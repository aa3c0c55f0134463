import { expect, test, type APIRequestContext, type Page } from '@playwright/test'
import { chooseLanguage, confirmViaOutbox } from './helpers'

/**
 * Issue 21 against the reference service: a number means what the person typed, in their language, and
 * credits go where the dashboard said they would. Balances and keys are read from the service itself.
 */

interface Account {
  email: string
  password: string
  token: string
}

async function newAccount(request: APIRequestContext, grant: Record<string, unknown>, preferred_language = 'en'): Promise<Account> {
  const email = `typed-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`
  const password = 'typed-numbers-pass'
  expect((await request.post('/api/auth/sign-up/', { data: { email, password, preferred_language } })).status()).toBe(201)
  await confirmViaOutbox(request, email)
  const login = await request.post('/api/auth/login/', { data: { username: email, password } })
  expect(login.ok()).toBe(true)
  const token = ((await login.json()) as { access: string }).access
  const granted = await request.post('/api/_test/grant-credits/', { data: grant, headers: { Authorization: `Bearer ${token}` } })
  expect(granted.ok(), await granted.text()).toBe(true)
  return { email, password, token }
}

interface Profile {
  remaining_credits: number | null
  purchased_credits_available: number
  credit_lots?: { source: string; credits: number }[]
}

async function profile(request: APIRequestContext, account: Account): Promise<Profile> {
  const res = await request.get('/api/user/profile/', { headers: { Authorization: `Bearer ${account.token}` } })
  expect(res.ok()).toBe(true)
  return (await res.json()) as Profile
}

const total = (p: Profile) => (p.remaining_credits ?? 0) + p.purchased_credits_available

/** Signs in on the (English) sign-in page; the dashboard then follows the profile's language. */
async function signIn(page: Page, account: Account, next: string, lang = 'en') {
  await page.goto(`/sign-in?next=${encodeURIComponent(next)}`)
  await page.getByLabel('Email').fill(account.email)
  await page.getByLabel('Password', { exact: true }).fill(account.password)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.waitForURL((url) => url.pathname === next.split('?')[0])
  await expect(page.locator('html')).toHaveAttribute('lang', lang)
}

/** The settled preview count. */
async function leadCount(page: Page): Promise<number> {
  const count = page.getByTestId('lead-count').first()
  await expect(count).toBeVisible()
  await expect(page.locator('[aria-busy="true"]')).toHaveCount(0)
  return Number(await count.getAttribute('data-count'))
}

const exportButton = (page: Page) => page.locator('[data-testid=export-open]:visible').first()

/** Opens the confirmation, checks what it will charge, starts the export and waits for its page. */
async function exportCharging(page: Page, credits: RegExp) {
  await expect(exportButton(page)).toBeEnabled()
  await exportButton(page).click()
  const dialog = page.getByRole('dialog')
  await expect(dialog.getByTestId('export-cost')).toHaveText(credits)
  await dialog.getByTestId('confirm-export').click()
  await page.waitForURL(/\/exports\/[^/]+$/)
}

const cases = [
  { lang: 'en', label: 'Most leads to export', typed: '1,000', understood: 'Capped at 1,000 leads', cost: /^1,000 credits$/ },
  {
    lang: 'de',
    label: 'Höchstens so viele Kontakte exportieren',
    typed: '1.000',
    understood: 'Begrenzt auf 1.000 Kontakte',
    cost: /^1\.000 Credits$/,
  },
  // a space as Polish writes it, and as a keyboard types it
  {
    lang: 'pl',
    label: 'Maksymalna liczba kontaktów do eksportu',
    typed: '1 000',
    understood: 'Limit: 1000 kontaktów',
    cost: /^1000 kredytów$/,
  },
]

for (const c of cases) {
  test(`export cap typed in ${c.lang} as "${c.typed}": the confirmation offers 1,000 and the service charges exactly 1,000`, async ({
    page,
    request,
  }) => {
    const account = await newAccount(request, { subscription: 50_000, plan_type: 'Pro' }, c.lang)
    await signIn(page, account, '/search?country=DE', c.lang)
    expect(await leadCount(page)).toBeGreaterThan(1000)
    const cap = page.getByLabel(c.label)
    await cap.pressSequentially(c.typed, { delay: 20 })
    // the text as typed, or the same number once the address has settled (seen now and then: the
    // field is drawn again from the address's cap; docs: closing note of 2026-11-27)
    await expect(cap).toHaveValue(new RegExp(`^(${c.typed.replace(/[.\s]/g, (ch) => (ch === '.' ? '\\.' : '\\s'))}|1000)$`))
    await expect(cap).toHaveAccessibleDescription(c.understood)
    await expect(page).toHaveURL(/[?&]cap=1000(&|$)/)
    const before = total(await profile(request, account))
    await exportCharging(page, c.cost)
    expect(before - total(await profile(request, account))).toBe(1000)
  })
}

test('an invalid cap turns "Export…" off with the reason beside it, on a laptop and on a phone', async ({ page, request }) => {
  const account = await newAccount(request, { subscription: 50_000, plan_type: 'Pro' })
  await signIn(page, account, '/search?country=DE')
  await leadCount(page)
  const cap = page.getByLabel('Most leads to export')
  const reason = 'Export is off until the cap is fixed. Enter a whole number without decimals, like 10,000.'
  // a decimal in English: neither one lead nor a thousand
  await cap.fill('1.000')
  await expect(exportButton(page)).toBeDisabled()
  await expect(exportButton(page)).toHaveAccessibleDescription(reason)
  await expect(page.getByText(reason).filter({ visible: true })).toHaveCount(1)
  for (const [typed, why] of [
    ['abc', 'Enter a whole number, like 10,000.'],
    ['0', 'Enter a whole number above 0.'],
    ['-5', 'Enter a whole number above 0.'],
    ['1,0', 'Separators go between groups of three digits, like 10,000.'],
  ] as const) {
    await cap.fill(typed)
    await expect(exportButton(page)).toBeDisabled()
    await expect(cap).toHaveAccessibleDescription(`Leave empty to export all matching leads. ${why}`)
  }
  // the phone's bottom bar says the same
  await page.setViewportSize({ width: 360, height: 740 })
  const bar = page.locator('.fixed.bottom-0')
  await expect(bar.getByRole('button', { name: 'Export…' })).toBeDisabled()
  await expect(bar).toContainText('Export is off until the cap is fixed. Separators go between groups of three digits, like 10,000.')
  await cap.fill('')
  await expect(bar.getByRole('button', { name: 'Export…' })).toBeEnabled()
  await expect(bar).not.toContainText('Export is off')
})

test('an API key’s monthly credit cap: "2.5" is refused, German "1.000" is saved as 1000', async ({ page, request }) => {
  const account = await newAccount(request, { subscription: 1_000, plan_type: 'Pro' })
  let posts = 0
  page.on('request', (r) => {
    if (r.method() === 'POST' && r.url().includes('/api/user/api-keys')) posts++
  })
  await signIn(page, account, '/api-keys')
  await page.getByRole('radio', { name: /Also start exports/ }).check()
  const cap = page.getByLabel('Monthly credit cap (optional)')
  await cap.fill('2.5')
  await expect(page.getByText('Enter a whole number without decimals, like 10,000.')).toBeVisible()
  await expect(page.getByRole('button', { name: 'Create key' })).toBeDisabled()
  expect(posts).toBe(0)

  await request.patch('/api/user/profile/', { data: { preferred_language: 'de' }, headers: { Authorization: `Bearer ${account.token}` } })
  await page.reload()
  await expect(page.locator('html')).toHaveAttribute('lang', 'de')
  await page.getByRole('radio', { name: /Auch Exporte starten/ }).check()
  const capDe = page.getByLabel('Monatliches Credit-Limit (optional)')
  await capDe.fill('2,5')
  await expect(page.getByRole('button', { name: 'Schlüssel erstellen' })).toBeDisabled()
  await capDe.fill('1.000')
  await expect(page.getByTestId('cap-understood')).toHaveText('Monatliches Limit: 1.000 Credits')
  await page.getByRole('button', { name: 'Schlüssel erstellen' }).click()
  await expect(page.getByRole('dialog', { name: 'Ihr neuer API-Schlüssel' }).getByLabel('Vollständiger API-Schlüssel')).toBeVisible()
  expect(posts).toBe(1)
  const keys = (await (await request.get('/api/user/api-keys/', { headers: { Authorization: `Bearer ${account.token}` } })).json()) as
    { monthly_credit_cap?: number | null }[] | { results: { monthly_credit_cap?: number | null }[] }
  const list = Array.isArray(keys) ? keys : keys.results
  expect(list.map((k) => k.monthly_credit_cap)).toEqual([1000])
})

test('500 purchased credits expiring in 3 days, a subscription ending later: "Cap this export at 500" spends exactly them', async ({
  page,
  request,
}) => {
  const account = await newAccount(request, {
    subscription: 2_000,
    period_ends_in_days: 20,
    purchased: 500,
    purchased_expires_in_days: 3,
    plan_type: 'Pro',
  })
  const before = await profile(request, account)
  // the service says it spends the earliest expiry first, and lists the purchased lot first
  expect(before.credit_lots?.map((l) => [l.source, l.credits])).toEqual([
    ['purchased', 500],
    ['subscription', 2000],
  ])
  await signIn(page, account, '/search?country=DE')
  await expect(page.getByTestId('credits-expiring').first()).toHaveText('Expiring soon: 500')
  await leadCount(page)
  const hint = page.getByTestId('expiring-hint')
  await expect(hint).toContainText('Purchased credits expiring within 7 days: 500')
  await hint.getByRole('button', { name: 'Cap this export at 500' }).click()
  await expect(page).toHaveURL(/[?&]cap=500(&|$)/)
  await expect(page.getByLabel('Most leads to export')).toHaveValue('500')
  await leadCount(page)
  await expect(exportButton(page)).toBeEnabled()
  await exportButton(page).click()
  const dialog = page.getByRole('dialog', { name: 'Export 500 leads?' })
  await expect(dialog.getByTestId('export-cost')).toHaveText('500 credits')
  await expect(dialog.getByTestId('from-purchased')).toHaveText('500')
  await expect(dialog.getByTestId('from-subscription')).toHaveText('0')
  await expect(dialog.getByTestId('balance-after')).toHaveText('2,000 credits')
  await dialog.getByTestId('confirm-export').click()
  await page.waitForURL(/\/exports\/[^/]+$/)

  const after = await profile(request, account)
  expect(before.purchased_credits_available - after.purchased_credits_available).toBe(500)
  expect(after.remaining_credits).toBe(before.remaining_credits)
})

test('a language chosen and the page reloaded at once comes back in that language, and the profile keeps it', async ({ page, request }) => {
  const account = await newAccount(request, { subscription: 100, plan_type: 'Pro' })
  await signIn(page, account, '/search')
  // a slow network: the German strings take 1.5 s to arrive, and the page is left long before
  await page.route(/\.js(\?|$)/, async (route) => {
    await new Promise((r) => setTimeout(r, 1500))
    await route.continue().catch(() => undefined)
  })
  await chooseLanguage(page, /^Language/, 'Deutsch')
  await page.reload()
  await expect(page.locator('html')).toHaveAttribute('lang', 'de')
  await page.unroute(/\.js(\?|$)/)
  await expect(page.getByRole('heading', { level: 1 })).not.toHaveText('Build a search')
  await expect
    .poll(
      async () =>
        (
          (await (await request.get('/api/user/profile/', { headers: { Authorization: `Bearer ${account.token}` } })).json()) as {
            preferred_language: string
          }
        ).preferred_language,
    )
    .toBe('de')
  // and it stays: the profile says German too
  await page.reload()
  await expect(page.locator('html')).toHaveAttribute('lang', 'de')
})
