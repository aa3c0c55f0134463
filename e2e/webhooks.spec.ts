import { createHmac, timingSafeEqual } from 'node:crypto'
import { mkdirSync } from 'node:fs'
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { expect, test, type APIRequestContext, type Page } from '@playwright/test'
import { apiAs, axeCheck, grantCredits, signInViaUi, signUpViaApi, type Account } from './helpers'

/**
 * Webhooks (issue 12, extension webhooks) against the real service, which the e2e configuration lets
 * call plain http on loopback (WEBHOOK_ALLOW_HTTP_LOOPBACK): a receiver started here records what the
 * service sends. An endpoint is added in the dashboard, its secret read from the dialog, a test event
 * and an export's completion arrive signed with that secret, and the page shows both deliveries.
 * axe and screenshots in English and Hebrew, at 1280 and 360 px.
 */

interface Received {
  headers: IncomingHttpHeaders
  body: string
}

let receiver: Server
const received: Received[] = []
let receiverUrl = ''

test.beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') })
      res.writeHead(200, { 'Content-Type': 'text/plain' }).end('ok')
    })
  })
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', () => resolve()))
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`
})
test.afterAll(async () => {
  receiver.closeAllConnections()
  await new Promise<void>((resolve) => receiver.close(() => resolve()))
})

mkdirSync('test-results/screens', { recursive: true })

/** The receiver's check, as the page's sample does it: HMAC-SHA256 of "<t>.<raw body>", constant-time, recent. */
function signatureValid(secret: string, header: string | string[] | undefined, raw: string): boolean {
  const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(typeof header === 'string' ? header : '')
  if (!m) return false
  if (Math.abs(Date.now() / 1000 - Number(m[1])) > 300) return false
  const expected = createHmac('sha256', secret).update(`${m[1]}.${raw}`).digest()
  return timingSafeEqual(expected, Buffer.from(m[2]!, 'hex'))
}

async function receivedEvent(type: string, after: number): Promise<Received> {
  let found: Received | undefined
  await expect
    .poll(() => (found = received.slice(after).find((r) => r.headers['leads-event-type'] === type)) !== undefined, { timeout: 30_000 })
    .toBe(true)
  return found!
}

async function completedExport(request: APIRequestContext, a: Account): Promise<number> {
  const preview = await apiAs<{ search_id: number }>(request, a, 'GET', '/api/companies/?countries=DE')
  expect(preview.status).toBe(200)
  const started = await apiAs<{ search_id: number }>(request, a, 'POST', '/api/download-csv/', {
    search_id: preview.body.search_id,
    export_format: 'csv',
    max_leads: 3,
  })
  expect(started.status).toBe(202)
  await expect
    .poll(async () => (await apiAs<{ status: string }>(request, a, 'GET', `/api/download-status/${started.body.search_id}/`)).body.status, {
      timeout: 45_000,
    })
    .toBe('COMPLETED')
  return started.body.search_id
}

const shot = (page: Page, name: string) => page.screenshot({ path: `test-results/screens/${name}.png`, fullPage: true })

test('add an endpoint, keep its secret, and see a test event and an export arrive signed with it', async ({ page, request, context }) => {
  test.setTimeout(150_000)
  const a = await signUpViaApi(request, { prefix: 'hooks' })
  await grantCredits(request, a, { subscription: 1000 })
  await context.grantPermissions(['clipboard-read', 'clipboard-write'])
  await page.setViewportSize({ width: 1280, height: 900 })
  await signInViaUi(page, a)
  // the navigation offers the page (this service lists the extension)
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Webhooks' }).click()
  await page.waitForURL((url) => url.pathname === '/webhooks')
  await expect(page.getByText('No endpoints yet')).toBeVisible()
  await expect(page.getByText('This development service also accepts http://127.0.0.1 and http://localhost.')).toBeVisible()

  // checked before sending: a plain-http address elsewhere is refused here
  const url = page.getByRole('textbox', { name: 'Endpoint URL' })
  await url.fill('http://example.com/hooks')
  await page.getByRole('button', { name: 'Add endpoint' }).click()
  await expect(page.getByText('Use an https URL (plain http only to 127.0.0.1 or localhost).')).toBeVisible()

  await url.fill(receiverUrl)
  await page.getByRole('button', { name: 'Add endpoint' }).click()
  const dialog = page.getByRole('dialog', { name: "Your endpoint's signing secret" })
  await expect(dialog.getByText(/you will not see it again/)).toBeVisible()
  const secret = await dialog.getByLabel('Signing secret').inputValue()
  expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{20,}$/)
  await dialog.getByRole('button', { name: 'Copy secret' }).click()
  await expect(dialog.getByText('Copied', { exact: true })).toBeVisible()
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret)
  await axeCheck(page, '/webhooks secret dialog (en)')
  await shot(page, 'webhooks-secret-en-1280')
  await page.keyboard.press('Escape')
  await expect(dialog.getByLabel('Signing secret')).toBeVisible() // not before the person says they have it
  await dialog.getByRole('checkbox', { name: /I have copied the secret/ }).check()
  await dialog.getByRole('button', { name: 'Done' }).click()
  await expect(page.getByRole('dialog')).toHaveCount(0)
  await expect(page.getByRole('button', { name: 'Add endpoint' })).toBeFocused()

  const card = page.getByRole('article', { name: receiverUrl })
  await expect(card.getByText(`whsec_…${secret.slice(-4)}`)).toBeVisible()
  await expect(page.getByText(secret)).toHaveCount(0)

  // a test event: queued, then delivered, and the receiver holds it, signed with the secret
  const before = received.length
  await card.getByRole('button', { name: 'Send test event' }).click()
  const testDelivery = card.getByTestId('delivery').filter({ hasText: 'Test event' })
  await expect(testDelivery).toContainText('Delivered', { timeout: 20_000 })
  await expect(testDelivery).toContainText('HTTP 200')
  await expect(testDelivery).toContainText('Attempts: 1')
  await expect(card.getByText('Test event delivered: your endpoint answered HTTP 200.')).toBeVisible()
  const testRequest = await receivedEvent('webhook.test', before)
  expect(signatureValid(secret, testRequest.headers['leads-signature'], testRequest.body)).toBe(true)
  expect(signatureValid('whsec_not-the-secret', testRequest.headers['leads-signature'], testRequest.body)).toBe(false)
  const testEvent = JSON.parse(testRequest.body) as { id: string; type: string }
  expect(testEvent).toMatchObject({ type: 'webhook.test', id: testRequest.headers['leads-event-id'] })

  // an export finishing sends export.completed: the page shows it once asked again (Refresh)
  const searchId = await completedExport(request, a)
  const completed = await receivedEvent('export.completed', before)
  expect(signatureValid(secret, completed.headers['leads-signature'], completed.body)).toBe(true)
  expect(JSON.parse(completed.body)).toMatchObject({ type: 'export.completed', data: { search_id: searchId, status: 'COMPLETED' } })
  const exportDelivery = card.getByTestId('delivery').filter({ hasText: 'Export ready' })
  await expect(async () => {
    await card.getByRole('button', { name: 'Refresh' }).click()
    await expect(exportDelivery).toContainText('Delivered', { timeout: 2_000 })
  }).toPass({ timeout: 30_000 })
  await expect(exportDelivery).toContainText('HTTP 200')

  await axeCheck(page, '/webhooks with deliveries (en, 1280 px)')
  await shot(page, 'webhooks-en-1280')
  await page.setViewportSize({ width: 360, height: 780 })
  await axeCheck(page, '/webhooks with deliveries (en, 360 px)')
  await shot(page, 'webhooks-en-360')
})

test('Hebrew: the page reads right to left, rotating shows the new secret once, removing asks first; axe clean', async ({
  page,
  request,
}) => {
  test.setTimeout(120_000)
  const a = await signUpViaApi(request, { prefix: 'hooks-he', preferred_language: 'he' })
  const created = await apiAs<{ webhook: { id: string }; secret: string }>(request, a, 'POST', '/api/user/webhooks/', { url: receiverUrl })
  expect(created.status).toBe(201)
  const id = created.body.webhook.id
  expect((await apiAs(request, a, 'POST', `/api/user/webhooks/${id}/test/`)).status).toBe(202)
  await expect
    .poll(
      async () => (await apiAs<{ status: string }[]>(request, a, 'GET', `/api/user/webhooks/${id}/deliveries/`)).body.map((d) => d.status),
      { timeout: 20_000 },
    )
    .toEqual(['succeeded'])

  await page.setViewportSize({ width: 1280, height: 900 })
  await signInViaUi(page, a, { next: '/webhooks' })
  await page.waitForURL((url) => url.pathname === '/webhooks')
  await expect(page.locator('html')).toHaveAttribute('dir', 'rtl')
  await expect(page.getByRole('heading', { level: 1, name: 'Webhooks' })).toBeVisible()
  const card = page.getByRole('article', { name: receiverUrl })
  await expect(card.getByTestId('delivery')).toContainText('נמסר')
  await expect(card.getByTestId('delivery')).toContainText('HTTP 200')
  await axeCheck(page, '/webhooks (he, 1280 px)')
  await shot(page, 'webhooks-he-1280')

  await card.getByRole('button', { name: 'החלפת הסוד' }).click()
  const confirm = page.getByRole('dialog', { name: 'להחליף את סוד החתימה?' })
  await expect(confirm).toContainText('הסוד הישן מפסיק לעבוד מיד')
  await confirm.getByRole('button', { name: 'החלפת הסוד' }).click()
  const shown = page.getByRole('dialog', { name: 'סוד החתימה החדש שלכם' })
  const secret = await shown.getByLabel('סוד החתימה').inputValue()
  expect(secret).not.toBe(created.body.secret)
  await axeCheck(page, '/webhooks new secret dialog (he)')
  await shot(page, 'webhooks-secret-he-1280')
  await page.setViewportSize({ width: 360, height: 780 })
  await shot(page, 'webhooks-secret-he-360')
  await shown.getByRole('checkbox').check()
  await shown.getByRole('button', { name: 'סיום' }).click()
  await expect(page.getByRole('dialog')).toHaveCount(0)
  await expect(card.getByRole('button', { name: 'החלפת הסוד' })).toBeFocused()

  // the new secret signs from now on
  const before = received.length
  await card.getByRole('button', { name: 'שליחת אירוע בדיקה' }).click()
  const testRequest = await receivedEvent('webhook.test', before)
  expect(signatureValid(secret, testRequest.headers['leads-signature'], testRequest.body)).toBe(true)
  expect(signatureValid(created.body.secret, testRequest.headers['leads-signature'], testRequest.body)).toBe(false)
  await expect(card.getByTestId('delivery').first()).toContainText('נמסר', { timeout: 20_000 })
  await axeCheck(page, '/webhooks (he, 360 px)')
  await shot(page, 'webhooks-he-360')

  await card.getByRole('button', { name: 'הסרה' }).click()
  const remove = page.getByRole('dialog', { name: 'להסיר את נקודת הקצה?' })
  await expect(remove).toContainText('אי אפשר לבטל פעולה זו.')
  await remove.getByRole('button', { name: 'הסרת נקודת הקצה' }).click()
  await expect(page.getByText('עדיין אין נקודות קצה')).toBeVisible()
  expect((await apiAs<unknown[]>(request, a, 'GET', '/api/user/webhooks/')).body).toEqual([])
})
