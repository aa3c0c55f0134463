import { expect, test } from '@playwright/test'
import { execFileSync } from 'node:child_process'
import { apiAs, axeCheck, signInViaUi, signUpViaApi } from './helpers'

/**
 * "Use in the API": the curl shown for the current search, run as it is (from this test, with a real API
 * key, by a real shell and curl) against the service, counts what the page counts.
 */
test('the curl of the current search counts what the page shows', async ({ page, request }) => {
  const account = await signUpViaApi(request, { prefix: 'snippets' })
  const key = await apiAs<{ token: string }>(request, account, 'POST', '/api/user/api-keys/', {})
  expect(key.status).toBe(201)
  await signInViaUi(page, account, { next: '/search?country=DE&email=1&format=excel&cap=40' })

  const count = page.getByTestId('lead-count')
  await expect(count).toBeVisible()
  await expect(page.getByText('Updating…')).toHaveCount(0)
  const shown = Number(await count.getAttribute('data-count'))
  expect(shown).toBeGreaterThan(0)

  const opener = page.getByRole('button', { name: 'Use in the API' })
  await opener.click()
  const dialog = page.getByRole('dialog', { name: 'This search in the API' })
  const curl = (await dialog.getByLabel('curl code').textContent()) ?? ''
  expect(curl).toContain('"export_format":"excel","max_leads":40')
  await axeCheck(page, 'api snippets dialog')

  // step 1 of the snippet, exactly as shown: the line after its "# 1." comment
  const lines = curl.split('\n')
  const countLine = lines[lines.findIndex((l) => l.startsWith('# 1.')) + 1]!
  expect(countLine).toMatch(/^curl /)
  const answer = JSON.parse(execFileSync('bash', ['-c', countLine], { env: { ...process.env, LEADS_API_KEY: key.body.token } }).toString())
  expect(answer.totalCount).toBe(shown)

  await dialog.getByRole('tab', { name: 'Python' }).click()
  await expect(dialog.getByLabel('Python code')).toContainText('"max_leads": 40')
  await page.keyboard.press('Escape')
  await expect(dialog).toBeHidden()
  await expect(opener).toBeFocused()
})
