import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { http, HttpResponse } from 'msw'
import { afterEach, describe, expect, it } from 'vitest'
import { profileSchema } from '@/api/account/profile'
import { changeLanguage, i18n } from '@/lib/i18n'
import { server } from '@/testing/msw-server'
import { renderWithProviders } from '@/testing/render'
import { bucketByWeek, startOfWeek, type WeekUsage } from '@/api/account/get-credit-usage'
import { CreditsPanel } from './credits-panel'
import { ExpiringCreditsPlan } from './expiring-credits-plan'
import { ProfileForm } from './profile-form'
import { UsageChart } from './usage-chart'

const rawProfile = {
  id: 7,
  email: 'ada@example.com',
  first_name: 'Ada',
  last_name: 'Lovelace',
  subscription_plan: {
    id: 2,
    plan_type: 'pro',
    monthly_credits: 5000,
    price_per_month: '99.00',
    link_expiration_days: 14,
    product_id: 'p',
    price_id: 'q',
    is_active: true,
    is_sellable: true,
    allows_fresh_exports: true,
    created_at: '2026-01-01T00:00:00Z',
    updated_at: '2026-01-01T00:00:00Z',
  },
  total_credits: 5000,
  remaining_credits: 1200,
  purchased_credits_available: 300,
  purchased_credits_expiring_soon: 50,
  current_period_start: 1_793_491_200, // 2026-11-01T00:00:00Z
  current_period_end: 1_796_083_200, // 2026-12-01T00:00:00Z
  can_download_fresh_exports: true,
  preferred_language: 'en',
}
const profile = (patch: Record<string, unknown> = {}) => profileSchema().parse({ ...rawProfile, ...patch })

afterEach(async () => {
  if (i18n.language !== 'en') await changeLanguage('en')
})

describe('ProfileForm validation (interface 2.1 / part 8 limits, checked before sending)', () => {
  // any PATCH reaching the network would fail the test: MSW has no handler (onUnhandledRequest: 'error')
  it('stops an email at 254 characters and shows the count near the limit; a longer one from elsewhere is refused', async () => {
    const { unmount } = renderWithProviders(<ProfileForm profile={profile()} />)
    const email = screen.getByLabelText('Email')
    expect(email).toHaveAttribute('maxlength', '254')
    expect(email).not.toHaveAccessibleDescription(/Characters/)
    await userEvent.clear(email)
    await userEvent.click(email)
    await userEvent.paste(`${'a'.repeat(243)}@example.com`) // 255
    expect(email).toHaveValue(`${'a'.repeat(243)}@example.co`)
    expect(email).toHaveAccessibleDescription('Characters: 254 of 254')
    unmount()

    // an address the input did not stop (the profile as the service had it) is refused before sending
    renderWithProviders(<ProfileForm profile={profile({ email: `${'a'.repeat(243)}@example.com` })} />)
    await userEvent.type(screen.getByLabelText('First name'), 'x')
    await userEvent.click(screen.getByRole('button', { name: 'Save changes' }))
    expect(await screen.findByText('An email address can have at most 254 characters.')).toBeInTheDocument()
    expect(screen.getByLabelText('Email')).toHaveAttribute('aria-invalid', 'true')
  })

  it('refuses an invalid email and an empty one', async () => {
    renderWithProviders(<ProfileForm profile={profile()} />)
    const email = screen.getByLabelText('Email')
    await userEvent.clear(email)
    await userEvent.type(email, 'not-an-email')
    await userEvent.click(screen.getByRole('button', { name: 'Save changes' }))
    expect(await screen.findByText('Enter a valid email address, like name@example.com.')).toBeInTheDocument()
    await userEvent.clear(email)
    await userEvent.click(screen.getByRole('button', { name: 'Save changes' }))
    expect(await screen.findByText('Enter your email address.')).toBeInTheDocument()
  })

  it('stops names at 150 characters with the count shown near the limit, sends exactly 150, and refuses a longer one from elsewhere', async () => {
    let sent: unknown = null
    server.use(
      http.patch('/api/user/profile/', async ({ request }) => {
        sent = await request.json()
        return HttpResponse.json({ ...rawProfile, first_name: 'b'.repeat(150) })
      }),
    )
    const { unmount } = renderWithProviders(<ProfileForm profile={profile()} />)
    const first = screen.getByLabelText('First name')
    expect(first).toHaveAttribute('maxlength', '150')
    expect(screen.getByLabelText('Last name')).toHaveAttribute('maxlength', '150')
    await userEvent.clear(first)
    await userEvent.click(first)
    await userEvent.paste('b'.repeat(119))
    expect(first).not.toHaveAccessibleDescription(/Characters/)
    await userEvent.paste('b'.repeat(32))
    expect(first).toHaveValue('b'.repeat(150))
    expect(first).toHaveAccessibleDescription('Characters: 150 of 150')
    await userEvent.click(screen.getByRole('button', { name: 'Save changes' }))
    expect(await screen.findByText('Your changes were saved.')).toBeInTheDocument()
    // only what changed is sent, never the balance or the period
    expect(sent).toEqual({ first_name: 'b'.repeat(150) })
    unmount()

    sent = null
    renderWithProviders(<ProfileForm profile={profile({ last_name: 'c'.repeat(151) })} />)
    await userEvent.type(screen.getByLabelText('First name'), 'x')
    await userEvent.click(screen.getByRole('button', { name: 'Save changes' }))
    expect(await screen.findByText('At most 150 characters.')).toBeInTheDocument()
    expect(sent).toBeNull()
  })

  it('offers exactly the 27 languages', () => {
    renderWithProviders(<ProfileForm profile={profile()} />)
    const options = within(screen.getByLabelText('Preferred language')).getAllByRole('option') as HTMLOptionElement[]
    expect(options.map((o) => o.value).sort()).toEqual([
      'bg',
      'cs',
      'da',
      'de',
      'el',
      'en',
      'es',
      'et',
      'fi',
      'fr',
      'he',
      'hr',
      'hu',
      'it',
      'lt',
      'lv',
      'nb',
      'nl',
      'pl',
      'pt',
      'ro',
      'sk',
      'sl',
      'sr',
      'sv',
      'th',
      'tr',
    ])
  })

  it("shows the service's field errors on the fields", async () => {
    server.use(
      http.patch('/api/user/profile/', () =>
        HttpResponse.json({ detail: 'Invalid input.', errors: { email: ['This email is already in use.'] } }, { status: 400 }),
      ),
    )
    renderWithProviders(<ProfileForm profile={profile()} />)
    const email = screen.getByLabelText('Email')
    await userEvent.clear(email)
    await userEvent.type(email, 'taken@example.com')
    await userEvent.type(screen.getByLabelText('Current password'), 'my password')
    await userEvent.click(screen.getByRole('button', { name: 'Save changes' }))
    expect(await screen.findByText('This email is already in use.')).toBeInTheDocument()
    expect(email).toHaveAttribute('aria-invalid', 'true')
  })

  it('a new email asks for the current password before sending, shows a wrong one on its field, then says where the link went', async () => {
    const sent: Array<Record<string, unknown>> = []
    server.use(
      http.patch('/api/user/profile/', async ({ request }) => {
        const body = (await request.json()) as Record<string, unknown>
        sent.push(body)
        if (body.current_password !== 'right one') {
          return HttpResponse.json(
            { detail: 'Invalid input.', errors: { current_password: ['The current password is not correct.'] } },
            { status: 400 },
          )
        }
        return HttpResponse.json({ ...rawProfile, pending_email: body.email })
      }),
    )
    renderWithProviders(<ProfileForm profile={profile()} />)
    expect(screen.queryByLabelText('Current password')).toBeNull() // only once the address changes
    const email = screen.getByLabelText('Email')
    await userEvent.clear(email)
    await userEvent.type(email, 'new@example.com')
    await userEvent.click(screen.getByRole('button', { name: 'Save changes' }))
    expect(await screen.findByText('Enter your current password to change the email address.')).toBeInTheDocument()
    expect(sent).toHaveLength(0)
    const password = screen.getByLabelText('Current password')
    await userEvent.type(password, 'wrong one')
    await userEvent.click(screen.getByRole('button', { name: 'Save changes' }))
    expect(await screen.findByText('The current password is not correct.')).toBeInTheDocument()
    expect(password).toHaveAttribute('aria-invalid', 'true')
    await userEvent.clear(password)
    await userEvent.type(password, 'right one')
    await userEvent.click(screen.getByRole('button', { name: 'Save changes' }))
    await waitFor(() => expect(sent).toHaveLength(2))
    expect(sent[1]).toMatchObject({ email: 'new@example.com', current_password: 'right one' })
  })

  it('says where the confirmation link went while a new address waits', async () => {
    renderWithProviders(<ProfileForm profile={profile({ pending_email: 'new@example.com' })} />)
    const notice = await screen.findByText(
      (_, el) => el?.getAttribute('role') === 'status' && /We sent a confirmation link to/.test(el.textContent ?? ''),
    )
    expect(notice).toHaveTextContent('We sent a confirmation link to new@example.com. Your sign-in address changes once you open it.')
    // the address is isolated, so a right-to-left sentence cannot reorder it
    expect(notice.querySelector('bdi[dir=ltr]')).toHaveTextContent('new@example.com')
  })

  it('switches the dashboard language as soon as the profile is saved', async () => {
    server.use(
      http.patch('/api/user/profile/', async ({ request }) => {
        const body = (await request.json()) as Record<string, unknown>
        return HttpResponse.json({ ...rawProfile, ...body })
      }),
    )
    renderWithProviders(<ProfileForm profile={profile()} />)
    await userEvent.selectOptions(screen.getByLabelText('Preferred language'), 'he')
    await userEvent.click(screen.getByRole('button', { name: 'Save changes' }))
    await waitFor(() => expect(i18n.language).toBe('he'))
    expect(document.documentElement.dir).toBe('rtl')
  })
})

describe('CreditsPanel', () => {
  it('shows plan, subscription credits left of the total, purchased and expiring soon, fresh exports', () => {
    renderWithProviders(<CreditsPanel profile={profile()} />)
    expect(screen.getByText('pro')).toBeInTheDocument()
    expect(screen.getByText('5,000 credits per month')).toBeInTheDocument()
    expect(screen.getByText('1,200 of 5,000 left this period')).toBeInTheDocument()
    expect(screen.getByRole('meter', { name: 'Subscription credits left' })).toHaveAttribute('value', '1200')
    expect(screen.getByText('300 available')).toBeInTheDocument()
    expect(screen.getByText(/50 purchased credits expire within 7 days/)).toBeInTheDocument()
    expect(screen.getByText('Included in your plan')).toBeInTheDocument()
  })

  // decisions.md: the period arrives as epoch seconds (declared type), an ISO string (described type) or null
  it.each([
    ['epoch seconds', 1_793_491_200, 1_796_083_200],
    ['ISO 8601 strings', '2026-11-01T00:00:00Z', '2026-12-01T00:00:00Z'],
    ['numeric strings', '1793491200', '1796083200'],
  ])('billing period from %s', (_label, start, end) => {
    renderWithProviders(<CreditsPanel profile={profile({ current_period_start: start, current_period_end: end })} />)
    const expected = `${new Intl.DateTimeFormat('en', { dateStyle: 'medium' }).format(new Date('2026-11-01T00:00:00Z'))} – ${new Intl.DateTimeFormat('en', { dateStyle: 'medium' }).format(new Date('2026-12-01T00:00:00Z'))}`
    expect(screen.getByTestId('billing-period')).toHaveTextContent(expected)
  })

  it('billing period null: says it is not set', () => {
    renderWithProviders(<CreditsPanel profile={profile({ current_period_start: null, current_period_end: null })} />)
    expect(screen.getByTestId('billing-period')).toHaveTextContent('Not set')
  })

  it('advises to use the expiring purchased credits first only when the service spends those first (credit_order)', async () => {
    const { unmount } = renderWithProviders(<CreditsPanel profile={profile()} />)
    expect(screen.getByText('50 purchased credits expire within 7 days.')).toBeInTheDocument()
    expect(screen.queryByText(/Use them first/)).toBeNull()
    unmount()
    server.use(http.get('*/api/capabilities/', () => HttpResponse.json({ credit_order: { version: 1, order: 'earliest_expiry_first' } })))
    renderWithProviders(<CreditsPanel profile={profile()} />)
    expect(await screen.findByText('50 purchased credits expire within 7 days. Use them first.')).toBeInTheDocument()
  })

  it('no plan, no fresh exports: explained with the way to plans', () => {
    renderWithProviders(
      <CreditsPanel
        profile={profile({
          subscription_plan: null,
          total_credits: 0,
          remaining_credits: 0,
          can_download_fresh_exports: false,
          purchased_credits_expiring_soon: 0,
        })}
      />,
    )
    expect(screen.getByText('No plan')).toBeInTheDocument()
    expect(screen.getByText('Not included in your plan')).toBeInTheDocument()
    expect(screen.getByRole('link', { name: 'See plans' })).toHaveAttribute('href', '/plans')
    expect(screen.queryByText(/expire within 7 days/)).not.toBeInTheDocument()
  })
})

describe('CreditsPanel for an address not confirmed yet (extension email_confirmation)', () => {
  it('says the credits arrive with the confirmation instead of "0 of 100"', () => {
    renderWithProviders(<CreditsPanel profile={profile({ email_confirmed: false, remaining_credits: 0, total_credits: 100 })} />)
    expect(screen.getByText('Confirm your email address to receive your free credits.')).toBeInTheDocument()
    expect(screen.queryByText(/of 100 left/)).not.toBeInTheDocument()
    expect(screen.queryByRole('meter')).not.toBeInTheDocument()
  })

  it('a confirmed address (or a service without the extension) shows the balance as before', () => {
    renderWithProviders(<CreditsPanel profile={profile({ email_confirmed: true })} />)
    expect(screen.getByText('1,200 of 5,000 left this period')).toBeInTheDocument()
    expect(screen.queryByRole('button', { name: 'Send the link again' })).not.toBeInTheDocument()
  })
})

describe('weekly usage', () => {
  it('sums credits per Monday-started week, empty weeks included, older entries left out', () => {
    const now = new Date(2026, 10, 25, 12) // Wednesday 25 Nov 2026, local
    const weeks = bucketByWeek(
      [
        { created_at: new Date(2026, 10, 23, 8).toISOString(), credits_charged: 10 }, // Monday this week
        { created_at: new Date(2026, 10, 25, 9).toISOString(), credits_charged: 5 },
        { created_at: new Date(2026, 10, 22, 23).toISOString(), credits_charged: 7 }, // Sunday: last week
        { created_at: new Date(2026, 7, 1).toISOString(), credits_charged: 999 }, // outside 4 weeks
      ],
      4,
      now,
    )
    expect(weeks.map((w) => w.credits)).toEqual([0, 0, 7, 15])
    expect(weeks[3]!.start.getTime()).toBe(startOfWeek(now).getTime())
    expect(weeks[3]!.start.getDay()).toBe(1)
  })
})

describe('weekly usage from the service', () => {
  it('pages until the window is covered, and a service clock ahead of ours still lands in the last week', async () => {
    const { getWeeklyUsage } = await import('@/api/account/get-credit-usage')
    const now = new Date(2026, 10, 25, 12)
    const ahead = new Date(2026, 11, 2, 9) // the service thinks it is a week later
    const pages: string[] = []
    server.use(
      http.get('/api/user/search-history/', ({ request }) => {
        const page = new URL(request.url).searchParams.get('page')!
        pages.push(page)
        return page === '1'
          ? HttpResponse.json({
              count: 3,
              next: 'http://x/api/user/search-history/?page=2',
              previous: null,
              results: [
                { created_at: ahead.toISOString(), credits_charged: 40 },
                { created_at: new Date(2026, 10, 24).toISOString(), credits_charged: 2 },
              ],
            })
          : HttpResponse.json({
              count: 3,
              next: null,
              previous: 'x',
              results: [{ created_at: new Date(2026, 0, 5).toISOString(), credits_charged: 500 }],
            })
      }),
    )
    const { weeks, source } = await getWeeklyUsage(4, { now })
    expect(source).toBe('service')
    expect(pages).toEqual(['1', '2'])
    expect(weeks.map((w) => w.credits)).toEqual([0, 0, 2, 40])
    expect(weeks[3]!.start.getTime()).toBe(startOfWeek(ahead).getTime())
  })
})

describe('UsageChart', () => {
  const weeks = (credits: number[]) =>
    credits.map((c, i): WeekUsage => ({ start: new Date(2026, 8, 7 + 7 * i), credits: c, bySource: c ? { '': c } : {} }))

  it('nothing spent (a new account): an empty state in words, no empty chart and no table', () => {
    renderWithProviders(<UsageChart weeks={weeks(Array.from({ length: 12 }, () => 0))} />)
    expect(screen.getByText('No credits spent over the last 12 weeks.')).toBeInTheDocument()
    expect(screen.getByText('Your exports will show here.')).toBeInTheDocument()
    expect(screen.queryByRole('img')).not.toBeInTheDocument()
    expect(screen.queryByRole('table')).not.toBeInTheDocument()
  })

  it('credits spent: the chart with its summary, and the figures as a table', () => {
    renderWithProviders(<UsageChart weeks={weeks([0, 5, 0, 12])} />)
    expect(screen.getByRole('img', { name: 'Credits spent per week' })).toBeInTheDocument()
    expect(
      screen.getByText(/17 credits spent over the last 4 weeks; the most in one week was 12/, { selector: 'figcaption' }),
    ).toBeInTheDocument()
    const rows = within(screen.getByRole('table', { hidden: true })).getAllByRole('row', { hidden: true })
    expect(rows).toHaveLength(5)
    expect(screen.queryByText('Your exports will show here.')).not.toBeInTheDocument()
    // no API key spent anything: no split by source
    expect(screen.queryByTestId('spend-by-source')).not.toBeInTheDocument()
  })

  it('splits the spend by source once an API key spent credits (extension scoped_api_keys): the dashboard first, then keys, most first', () => {
    const split = bucketByWeek(
      [
        { created_at: new Date(2026, 10, 23, 8).toISOString(), credits_charged: 10, api_key: { token_key: 'aaaa1111' } },
        { created_at: new Date(2026, 10, 24, 8).toISOString(), credits_charged: 30, api_key: { token_key: 'bbbb2222' } },
        { created_at: new Date(2026, 10, 17, 8).toISOString(), credits_charged: 5, api_key: { token_key: 'aaaa1111' } },
        { created_at: new Date(2026, 10, 18, 8).toISOString(), credits_charged: 7, api_key: null },
      ],
      4,
      new Date(2026, 10, 25, 12),
    )
    expect(split.at(-1)!.bySource).toEqual({ aaaa1111: 10, bbbb2222: 30 })
    renderWithProviders(<UsageChart weeks={split} />)
    const rows = within(screen.getByTestId('spend-by-source')).getAllByRole('row').slice(1)
    expect(rows.map((r) => r.textContent)).toEqual(['Dashboard (signed in)7', 'API key bbbb2222…30', 'API key aaaa1111…15'])
  })
})

describe('ExpiringCreditsPlan', () => {
  const entry = (id: number, status = 'COMPLETED') => ({
    search_id: id,
    filters: { countries: ['DE'] },
    created_at: '2026-11-10T09:00:00Z',
    status,
    lead_count: 10,
    credits_charged: 10,
    export_format: 'csv',
  })
  it('lists fresh-data exports whose free dry run fits the expiring credits, bounded in requests, and a capped search', async () => {
    const dryRuns: number[] = []
    server.use(
      http.get('*/api/user/search-history/', () =>
        HttpResponse.json({
          count: 8,
          next: null,
          previous: null,
          results: [entry(1), entry(2, 'FAILED'), entry(3), entry(4), entry(5), entry(6), entry(7), entry(8)],
        }),
      ),
      http.post('*/api/user/search-history/:id/download-delta/', async ({ params, request }) => {
        expect(await request.json()).toEqual({ dry_run: true })
        const id = Number(params.id)
        dryRuns.push(id)
        const required = id === 1 ? 30 : id === 3 ? 80 : 0 // 80 is more than the 50 expiring; 0 = no new leads
        return HttpResponse.json({
          status: required ? 'validated' : 'rejected',
          validation_code: required ? 'ok' : 'no_new_leads',
          search_id: id,
          lead_count: required,
          required_credits: required,
          available_credits: 1500,
        })
      }),
    )
    renderWithProviders(<ExpiringCreditsPlan expiring={50} capTo={50} />)
    const plan = await screen.findByTestId('expiring-plan')
    expect(plan).toHaveTextContent('Purchased credits expiring within 7 days: 50.')
    await waitFor(() => expect(within(plan).getAllByRole('link')).toHaveLength(2))
    expect(within(plan).getByText('Cost in credits: 30')).toBeInTheDocument()
    expect(within(plan).getByRole('link', { name: 'Get fresh data' })).toHaveAttribute('href', '/history?fresh=1')
    expect(within(plan).getByRole('link', { name: 'Search and export, capped at 50' })).toHaveAttribute('href', '/search?cap=50')
    // the five most recent completed exports, no more; the failed one is not asked
    expect(dryRuns.sort((a, b) => a - b)).toEqual([1, 3, 4, 5, 6])
  })

  it('when credits that expire even sooner are spent before them, the capped search counts those and no fresh-data export is offered', async () => {
    // any history or dry-run request would fail the test (no handler): none is asked
    renderWithProviders(<ExpiringCreditsPlan expiring={50} capTo={80} />)
    const plan = await screen.findByTestId('expiring-plan')
    expect(within(plan).getAllByRole('link')).toHaveLength(1)
    expect(within(plan).getByRole('link', { name: 'Search and export, capped at 80' })).toHaveAttribute('href', '/search?cap=80')
    expect(plan).not.toHaveTextContent('Checking')
  })
})
