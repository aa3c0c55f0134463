import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { http, HttpResponse } from 'msw'
import { describe, expect, it, vi } from 'vitest'
import { changeLanguage } from '@/lib/i18n'
import { server } from '@/testing/msw-server'
import { renderWithProviders } from '@/testing/render'
import { createApiKeyFormSchema, endOfLocalDay } from '@/api/api-keys/create-api-key'
import { ApiKeysPage } from './api-keys-page'

const DAY = 86_400_000
const iso = (ms: number) => new Date(ms).toISOString()
const localDay = (d: Date) => `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`

function serveKeys(initial: Record<string, unknown>[]) {
  const keys = [...initial]
  const posted: unknown[] = []
  const deleted: string[] = []
  server.use(
    http.get('/api/user/api-keys/', () => HttpResponse.json(keys)),
    http.post('/api/user/api-keys/', async ({ request }) => {
      const body = (await request.json()) as { expiry?: string; name?: string }
      posted.push(body)
      const api_key = {
        id: `k-${posted.length}`,
        token_key: 'ab12cd34',
        created: iso(Date.now()),
        expiry: body.expiry ?? null,
        name: body.name ?? null,
      }
      keys.push(api_key)
      return HttpResponse.json({ token: 'ab12cd34.full-secret-value', api_key }, { status: 201 })
    }),
    http.delete('/api/user/api-keys/:id/', ({ params }) => {
      deleted.push(String(params.id))
      keys.splice(
        keys.findIndex((k) => k.id === params.id),
        1,
      )
      return new HttpResponse(null, { status: 204 })
    }),
  )
  return { posted, deleted }
}

/** The expiry field's segments (month, day, year in English), each a spin button named with the field; the picker loads lazily. */
const segments = async () =>
  within(await screen.findByRole('group', { name: 'Expiry date (optional)' }, { timeout: 5_000 })).getAllByRole('spinbutton')

/** Types an ISO day into the segments as a person would: digits, each segment moving on to the next. */
async function typeDay(iso: string) {
  const [y, m, d] = iso.split('-')
  await userEvent.click((await segments())[0]!)
  await userEvent.keyboard(`${m}${d}${y}`)
}

describe('create key form: expiry', () => {
  it('the schema refuses a day that has ended, accepts today and empty', () => {
    const now = new Date(2026, 10, 23, 15).getTime()
    const schema = createApiKeyFormSchema(() => now)
    const form = (expiry: string) => ({ name: '', expiry, scope: 'read', cap: '' })
    expect(schema.safeParse(form('')).success).toBe(true)
    expect(schema.safeParse(form('2026-11-23')).success).toBe(true)
    const past = schema.safeParse(form('2026-11-22'))
    expect(past.success).toBe(false)
    expect(past.error?.issues[0]?.message).toBe('past')
    expect(schema.safeParse(form('tomorrow')).error?.issues[0]?.message).toBe('invalid')
    expect(endOfLocalDay('2026-11-23').getHours()).toBe(23)
  })

  it('a past date is refused with a clear message before anything is sent', async () => {
    const { posted } = serveKeys([])
    renderWithProviders(<ApiKeysPage />)
    await screen.findByText('You have no API keys yet.')
    await typeDay(localDay(new Date(Date.now() - 3 * DAY)))
    await userEvent.click(screen.getByRole('button', { name: 'Create key' }))
    expect(await screen.findByText('Choose a date that has not passed yet.')).toBeInTheDocument()
    expect((await segments())[0]).toHaveAttribute('aria-invalid', 'true')
    expect(posted).toEqual([])
  })

  it('a half-typed date is refused, not taken for "never expires"', async () => {
    const { posted } = serveKeys([])
    renderWithProviders(<ApiKeysPage />)
    await screen.findByText('You have no API keys yet.')
    await userEvent.click((await segments())[0]!)
    await userEvent.keyboard('03')
    await userEvent.click(screen.getByRole('button', { name: 'Create key' }))
    expect(await screen.findByText('Enter a valid date.')).toBeInTheDocument()
    expect(posted).toEqual([])
  })

  it("the service's 400 on expiry is shown on the field", async () => {
    serveKeys([])
    server.use(
      http.post('/api/user/api-keys/', () =>
        HttpResponse.json({ detail: 'Invalid input.', errors: { expiry: ['Expiry must be in the future.'] } }, { status: 400 }),
      ),
    )
    renderWithProviders(<ApiKeysPage />)
    await screen.findByText('You have no API keys yet.')
    await typeDay(localDay(new Date(Date.now() + 3 * DAY)))
    await userEvent.click(screen.getByRole('button', { name: 'Create key' }))
    // the service's own words (no code on this answer, and not a text we recognise)
    expect(await screen.findByText('Expiry must be in the future.')).toBeInTheDocument()
  })
})

describe('ApiKeysPage', () => {
  it('lists keys with prefix, dates and active/expired state', async () => {
    serveKeys([
      { id: 'a', token_key: 'aaaa1111', created: iso(Date.now() - 10 * DAY), expiry: null },
      { id: 'b', token_key: 'bbbb2222', created: iso(Date.now() - 10 * DAY), expiry: iso(Date.now() - DAY) },
    ])
    renderWithProviders(<ApiKeysPage />)
    const rows = await screen.findAllByRole('row')
    expect(within(rows[1]!).getByText('aaaa1111…')).toBeInTheDocument()
    expect(within(rows[1]!).getByText('Never')).toBeInTheDocument()
    expect(within(rows[1]!).getByText('Active')).toBeInTheDocument()
    expect(within(rows[2]!).getByText('Expired')).toBeInTheDocument()
  })

  it('shows the full key once, with copy and curl, and cannot be closed before the acknowledgement', async () => {
    const { posted } = serveKeys([])
    const writeText = vi.fn().mockResolvedValue(undefined)
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true })
    renderWithProviders(<ApiKeysPage />)
    await screen.findByText('You have no API keys yet.')
    await userEvent.click(screen.getByRole('button', { name: 'Create key' }))
    const dialog = await screen.findByRole('dialog', { name: 'Your new API key' })
    expect(posted).toEqual([{}]) // no expiry: the field is omitted
    expect(within(dialog).getByLabelText('Full API key')).toHaveValue('ab12cd34.full-secret-value')
    expect(within(dialog).getByText(/you will not see it again/)).toBeInTheDocument()
    expect(
      within(dialog).getByText(
        `curl -H "Authorization: Token ab12cd34.full-secret-value" "${window.location.origin}/api/companies/?countries=DE"`,
      ),
    ).toBeInTheDocument()

    await userEvent.click(within(dialog).getByRole('button', { name: 'Copy key' }))
    expect(writeText).toHaveBeenCalledWith('ab12cd34.full-secret-value')
    expect(await within(dialog).findByText('Copied')).toBeInTheDocument()

    const done = within(dialog).getByRole('button', { name: 'Done' })
    expect(done).toBeDisabled()
    await userEvent.keyboard('{Escape}')
    expect(screen.getByRole('dialog', { name: 'Your new API key' })).toBeInTheDocument()
    await userEvent.click(within(dialog).getByRole('checkbox', { name: /I have copied the key/ }))
    await userEvent.click(done)
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument())
    // the list shows only the prefix from now on
    expect(await screen.findByText('ab12cd34…')).toBeInTheDocument()
    expect(screen.queryByText(/full-secret-value/)).not.toBeInTheDocument()
  })

  it('the date field has a hint in the dashboard language: an example, then the chosen day with the month in words', async () => {
    serveKeys([])
    renderWithProviders(<ApiKeysPage />)
    await screen.findByText('You have no API keys yet.')
    const year = new Date().getFullYear() + 1
    expect(await screen.findByTestId('expiry-format', {}, { timeout: 5_000 })).toHaveTextContent(`For example: December 31, ${year}`)
    // the hint is read with the field
    expect((await segments())[0]).toHaveAccessibleDescription(new RegExp(`For example: December 31, ${year}`))
    await typeDay(`${year}-03-04`)
    expect(screen.getByTestId('expiry-format')).toHaveTextContent(`Chosen: March 4, ${year}`)
  })

  it('sends a chosen expiry as an ISO date-time at the end of that day', async () => {
    const { posted } = serveKeys([])
    renderWithProviders(<ApiKeysPage />)
    await screen.findByText('You have no API keys yet.')
    const day = localDay(new Date(Date.now() + 30 * DAY))
    await typeDay(day)
    await userEvent.click(screen.getByRole('button', { name: 'Create key' }))
    await screen.findByRole('dialog')
    expect(posted).toEqual([{ expiry: endOfLocalDay(day).toISOString() }])
  })

  it('revokes through a confirmation that names the key', async () => {
    const { deleted } = serveKeys([{ id: 'a', token_key: 'aaaa1111', created: iso(Date.now()), expiry: null }])
    renderWithProviders(<ApiKeysPage />)
    await userEvent.click(await screen.findByRole('button', { name: 'Revoke key aaaa1111…' }))
    const dialog = await screen.findByRole('dialog', { name: 'Revoke key aaaa1111…?' })
    expect(within(dialog).getByRole('heading').querySelector('bdi')?.textContent).toBe('aaaa1111…')
    expect(deleted).toEqual([])
    await userEvent.click(within(dialog).getByRole('button', { name: 'Revoke key' }))
    await waitFor(() => expect(screen.getAllByRole('status').map((el) => el.textContent)).toContain('Key aaaa1111… was revoked.'))
    // the Latin prefix (with its ellipsis) is isolated, so Hebrew text cannot reorder it
    const bdi = screen
      .getAllByRole('status')
      .find((el) => el.textContent === 'Key aaaa1111… was revoked.')!
      .querySelector('bdi')
    expect(bdi?.textContent).toBe('aaaa1111…')
    expect(deleted).toEqual(['a'])
    expect(await screen.findByText('You have no API keys yet.')).toBeInTheDocument()
  })
})

describe('scoped keys (extension scoped_api_keys)', () => {
  const withScopes = () =>
    server.use(http.get('*/api/capabilities/', () => HttpResponse.json({ scoped_api_keys: { version: 1, scopes: ['read', 'export'] } })))

  it('offers read-only (the default) or export rights; a cap only for a key that exports; sends both', async () => {
    withScopes()
    const { posted } = serveKeys([])
    renderWithProviders(<ApiKeysPage />)
    const group = await screen.findByRole('group', { name: 'What the key may do' })
    expect(within(group).getByRole('radio', { name: /Search and download only/ })).toBeChecked()
    expect(screen.queryByLabelText('Monthly credit cap (optional)')).toBeNull()
    await userEvent.click(screen.getByRole('button', { name: 'Create key' }))
    await screen.findByRole('dialog')
    expect(posted).toEqual([{ scope: 'read' }])
  })

  it('an export key with a cap: what is not a whole number is refused as it is typed, with the reason, and the key is not made; "1 500" is sent as 1500', async () => {
    withScopes()
    const { posted } = serveKeys([])
    renderWithProviders(<ApiKeysPage />)
    await userEvent.click(await screen.findByRole('radio', { name: /Also start exports/ }))
    const cap = screen.getByLabelText('Monthly credit cap (optional)')
    const create = screen.getByRole('button', { name: 'Create key' })
    for (const [typed, reason] of [
      ['12.5x', 'Enter a whole number, like 10,000.'],
      // issue 21: "2.5" was saved as 25
      ['2.5', 'Enter a whole number without decimals, like 10,000.'],
      ['1.000', 'Enter a whole number without decimals, like 10,000.'],
      ['0', 'Enter a whole number of credits from 1 to 1,000,000,000.'],
      ['2000000000', 'Enter a whole number of credits from 1 to 1,000,000,000.'],
    ] as const) {
      await userEvent.clear(cap)
      await userEvent.type(cap, typed)
      expect(await screen.findByText(reason)).toBeInTheDocument()
      expect(cap).toHaveAttribute('aria-invalid', 'true')
      expect(create).toBeDisabled()
    }
    await userEvent.click(create)
    expect(posted).toEqual([])
    await userEvent.clear(cap)
    await userEvent.type(cap, '1 500')
    expect(screen.getByTestId('cap-understood')).toHaveTextContent('Monthly cap: 1,500 credits')
    await userEvent.click(create)
    await screen.findByRole('dialog')
    expect(posted).toEqual([{ scope: 'export', monthly_credit_cap: 1500 }])
  })

  it('reads the cap in the person’s language: German "1.000" is sent as 1000, "2,5" is refused', async () => {
    withScopes()
    const { posted } = serveKeys([])
    await changeLanguage('de')
    try {
      renderWithProviders(<ApiKeysPage />)
      await userEvent.click(await screen.findByRole('radio', { name: /Auch Exporte starten/ }))
      const cap = screen.getByLabelText('Monatliches Credit-Limit (optional)')
      await userEvent.type(cap, '2,5')
      expect(screen.getByRole('button', { name: 'Schlüssel erstellen' })).toBeDisabled()
      await userEvent.clear(cap)
      await userEvent.type(cap, '1.000')
      expect(screen.getByTestId('cap-understood')).toHaveTextContent('1.000')
      await userEvent.click(screen.getByRole('button', { name: 'Schlüssel erstellen' }))
      await screen.findByRole('dialog')
      expect(posted).toEqual([{ scope: 'export', monthly_credit_cap: 1000 }])
    } finally {
      await changeLanguage('en')
    }
  })

  it('a cap typed for an export key is not sent, nor checked, once the key is made read-only', async () => {
    withScopes()
    const { posted } = serveKeys([])
    renderWithProviders(<ApiKeysPage />)
    await userEvent.click(await screen.findByRole('radio', { name: /Also start exports/ }))
    await userEvent.type(screen.getByLabelText('Monthly credit cap (optional)'), 'abc')
    await userEvent.click(screen.getByRole('radio', { name: /Search and download only/ }))
    await userEvent.click(screen.getByRole('button', { name: 'Create key' }))
    await screen.findByRole('dialog')
    expect(posted).toEqual([{ scope: 'read' }])
  })

  it("lists each key's rights and what it spent this month of its cap", async () => {
    withScopes()
    const created = iso(Date.now() - DAY)
    serveKeys([
      { id: 'r', token_key: 'rrrr1111', created, expiry: null, scope: 'read', monthly_credit_cap: null, credits_spent_this_period: 0 },
      { id: 'c', token_key: 'cccc2222', created, expiry: null, scope: 'export', monthly_credit_cap: 500, credits_spent_this_period: 120 },
      { id: 'u', token_key: 'uuuu3333', created, expiry: null, scope: 'export', monthly_credit_cap: null, credits_spent_this_period: 2500 },
    ])
    renderWithProviders(<ApiKeysPage />)
    expect(await screen.findByRole('columnheader', { name: 'Rights' })).toBeInTheDocument()
    const row = (prefix: string) => screen.getByText(`${prefix}…`).closest('tr')!
    expect(within(row('rrrr1111')).getByText('Read only')).toBeInTheDocument()
    expect(within(row('cccc2222')).getByText('120 of 500 credits')).toBeInTheDocument()
    expect(within(row('uuuu3333')).getByText('2,500 credits, no cap')).toBeInTheDocument()
  })
})

describe('named keys (extension api_key_names)', () => {
  const withNames = (maxLength = 60) =>
    server.use(http.get('*/api/capabilities/', () => HttpResponse.json({ api_key_names: { version: 1, max_length: maxLength } })))

  it('the schema counts the name without the spaces around it, up to the given length', () => {
    const schema = createApiKeyFormSchema(Date.now, 5)
    const form = (name: string) => ({ name, expiry: '', scope: 'read', cap: '' })
    expect(schema.safeParse(form('  abcde  ')).success).toBe(true)
    expect(schema.safeParse(form('abcdef')).error?.issues[0]?.message).toBe('tooLong')
  })

  it('offers no name field on a service without the extension, and sends none', async () => {
    const { posted } = serveKeys([])
    renderWithProviders(<ApiKeysPage />)
    await screen.findByText('You have no API keys yet.')
    expect(screen.queryByLabelText('Name (optional)')).toBeNull()
    await userEvent.click(screen.getByRole('button', { name: 'Create key' }))
    await screen.findByRole('dialog', { name: 'Your new API key' })
    expect(posted).toEqual([{}])
  })

  it('sends the name trimmed, shows it in the new key’s dialog, and a blank name is no name', async () => {
    withNames()
    const { posted } = serveKeys([])
    renderWithProviders(<ApiKeysPage />)
    await userEvent.type(await screen.findByLabelText('Name (optional)'), '  CRM sync ')
    await userEvent.click(screen.getByRole('button', { name: 'Create key' }))
    const dialog = await screen.findByRole('dialog', { name: 'Your new API key' })
    expect(posted).toEqual([{ name: 'CRM sync' }])
    expect(within(dialog).getByText('CRM sync')).toBeInTheDocument()
    await userEvent.click(within(dialog).getByRole('checkbox', { name: /I have copied the key/ }))
    await userEvent.click(within(dialog).getByRole('button', { name: 'Done' }))
    // the form was emptied: spaces alone name nothing
    const name = screen.getByLabelText('Name (optional)')
    expect(name).toHaveValue('')
    await userEvent.type(name, '   ')
    await userEvent.click(screen.getByRole('button', { name: 'Create key' }))
    await waitFor(() => expect(posted).toHaveLength(2))
    expect(posted[1]).toEqual({})
  })

  it('a name longer than the service allows is refused before sending, with the limit', async () => {
    withNames(10)
    const { posted } = serveKeys([])
    renderWithProviders(<ApiKeysPage />)
    const name = await screen.findByLabelText('Name (optional)')
    await userEvent.type(name, 'Nightly CRM sync')
    await userEvent.click(screen.getByRole('button', { name: 'Create key' }))
    expect(await screen.findByText('Use at most 10 characters.')).toBeInTheDocument()
    expect(name).toHaveAttribute('aria-invalid', 'true')
    expect(posted).toEqual([])
  })

  it("the service's 400 on the name is shown on the field, in the person's words", async () => {
    withNames()
    serveKeys([])
    server.use(
      http.post('/api/user/api-keys/', () =>
        HttpResponse.json(
          {
            detail: 'Invalid input.',
            code: 'invalid_input',
            errors: { name: ['Must not contain control characters or text-direction overrides.'] },
            error_codes: { name: [{ code: 'control_characters' }] },
          },
          { status: 400 },
        ),
      ),
    )
    renderWithProviders(<ApiKeysPage />)
    const name = await screen.findByLabelText('Name (optional)')
    await userEvent.type(name, 'CRM sync')
    await userEvent.click(screen.getByRole('button', { name: 'Create key' }))
    await waitFor(() => expect(name).toHaveAttribute('aria-invalid', 'true'))
    expect(name).toHaveAccessibleDescription(/control characters/)
    expect(screen.queryByText(/The key could not be created/)).toBeNull()
  })

  it('lists a named key by its name with the prefix beside it, and revokes it by name; an unnamed key reads as its prefix', async () => {
    withNames()
    const { deleted } = serveKeys([
      { id: 'n', token_key: 'nnnn1111', name: 'CRM sync', created: iso(Date.now()), expiry: null },
      { id: 'u', token_key: 'uuuu2222', name: null, created: iso(Date.now()), expiry: null },
    ])
    renderWithProviders(<ApiKeysPage />)
    const named = (await screen.findByText('CRM sync')).closest('tr')!
    expect(within(named).getByText('nnnn1111…')).toBeInTheDocument()
    const unnamed = screen.getByText('uuuu2222…').closest('tr')!
    expect(unnamed.querySelector('td')?.textContent).toBe('uuuu2222…')
    expect(within(unnamed).getByRole('button', { name: 'Revoke key uuuu2222…' })).toBeInTheDocument()

    await userEvent.click(within(named).getByRole('button', { name: 'Revoke key “CRM sync” (nnnn1111…)' }))
    const dialog = await screen.findByRole('dialog', { name: 'Revoke “CRM sync”?' })
    expect(dialog).toHaveAccessibleDescription(
      'Programs using the key “CRM sync” (nnnn1111…) will be refused at once. This cannot be undone.',
    )
    // the name keeps its own direction, the Latin prefix reads left to right
    const [name, prefix] = within(dialog)
      .getByText(/Programs using/)
      .querySelectorAll('bdi')
    expect([name?.textContent, name?.getAttribute('dir'), prefix?.textContent, prefix?.getAttribute('dir')]).toEqual([
      'CRM sync',
      null,
      'nnnn1111…',
      'ltr',
    ])
    await userEvent.click(within(dialog).getByRole('button', { name: 'Revoke key' }))
    await waitFor(() => expect(screen.getAllByRole('status').map((el) => el.textContent)).toContain('Key “CRM sync” was revoked.'))
    expect(deleted).toEqual(['n'])
  })

  it('a blank name from a service reads as no name', async () => {
    withNames()
    serveKeys([{ id: 'b', token_key: 'bbbb1111', name: '  ', created: iso(Date.now()), expiry: null }])
    renderWithProviders(<ApiKeysPage />)
    expect(await screen.findByRole('button', { name: 'Revoke key bbbb1111…' })).toBeInTheDocument()
  })
})
