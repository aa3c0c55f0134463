import { fireEvent, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { http, HttpResponse } from 'msw'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { changeLanguage, i18n } from '@/lib/i18n'
import { resetSessionForTests, setTokensForTests } from '@/lib/session'
import { server } from '@/testing/msw-server'
import { renderWithProviders } from '@/testing/render'
import { LanguageSwitcher } from './language-switcher'

function Page() {
  return (
    <>
      <LanguageSwitcher />
      <button type="button">Elsewhere</button>
    </>
  )
}

const toggle = () => screen.getByRole('button', { name: /^(Language|שפה|Sprache) / })
const list = () => document.getElementById(toggle().getAttribute('aria-controls') ?? '')!

beforeEach(() => resetSessionForTests())
afterEach(async () => {
  await changeLanguage('en')
})

describe('language switcher (disclosure)', () => {
  it('names the current language; the list names each language in itself, with lang, and marks the current one', async () => {
    const user = userEvent.setup()
    renderWithProviders(<Page />)
    expect(toggle()).toHaveAccessibleName('Language English')
    expect(toggle()).toHaveAttribute('aria-expanded', 'false')
    expect(list()).not.toBeVisible()
    await user.click(toggle())
    expect(toggle()).toHaveAttribute('aria-expanded', 'true')
    expect(list()).toBeVisible()
    const items = within(list()).getAllByRole('button')
    expect(items).toHaveLength(27)
    const hebrew = within(list()).getByRole('button', { name: 'עברית' })
    expect(hebrew).toHaveAttribute('lang', 'he')
    expect(within(list()).getByRole('button', { name: 'Deutsch' })).toHaveAttribute('lang', 'de')
    expect(within(list()).getByRole('button', { name: 'English' })).toHaveAttribute('aria-current', 'true')
    expect(items.filter((b) => b.hasAttribute('aria-current'))).toHaveLength(1)
  })

  it('arrow keys and Tab through the list change nothing; only a choice switches the language', async () => {
    const user = userEvent.setup()
    renderWithProviders(<Page />)
    toggle().focus()
    await user.keyboard('{ArrowDown}{ArrowDown}{ArrowUp}')
    expect(i18n.resolvedLanguage).toBe('en')
    await user.keyboard('{Enter}')
    await user.tab()
    await user.tab()
    await user.keyboard('{ArrowDown}')
    expect(i18n.resolvedLanguage).toBe('en')
    await user.click(within(list()).getByRole('button', { name: 'עברית' }))
    await waitFor(() => expect(document.documentElement).toHaveAttribute('dir', 'rtl'))
    expect(document.documentElement).toHaveAttribute('lang', 'he')
    expect(toggle()).toHaveAttribute('aria-expanded', 'false')
    expect(toggle()).toHaveFocus()
    expect(toggle()).toHaveAccessibleName('שפה עברית')
  })

  it('Escape closes and returns the focus; a click outside or Tab out closes', async () => {
    const user = userEvent.setup()
    renderWithProviders(<Page />)
    await user.click(toggle())
    await user.tab()
    expect(within(list()).getAllByRole('button')[0]).toHaveFocus()
    await user.keyboard('{Escape}')
    expect(toggle()).toHaveAttribute('aria-expanded', 'false')
    expect(toggle()).toHaveFocus()

    await user.click(toggle())
    await user.click(document.body)
    expect(toggle()).toHaveAttribute('aria-expanded', 'false')

    await user.click(toggle())
    within(list()).getAllByRole('button').at(-1)!.focus()
    await user.tab()
    expect(screen.getByRole('button', { name: 'Elsewhere' })).toHaveFocus()
    expect(toggle()).toHaveAttribute('aria-expanded', 'false')
    expect(i18n.resolvedLanguage).toBe('en')
  })

  it('signed in, the choice is saved to the profile once', async () => {
    setTokensForTests('access', 'refresh')
    const saved: unknown[] = []
    server.use(
      http.patch('/api/user/profile/', async ({ request }) => {
        saved.push(await request.json())
        return HttpResponse.json({
          id: 3,
          email: 'grace@example.com',
          first_name: 'Grace',
          last_name: 'Hopper',
          subscription_plan: { plan_type: 'Pro', monthly_credits: 5000, price_per_month: '99.00', link_expiration_days: 14 },
          total_credits: 5000,
          remaining_credits: 1234,
          purchased_credits_available: 0,
          purchased_credits_expiring_soon: 0,
          current_period_start: 1_793_000_000,
          current_period_end: 1_795_592_000,
          can_download_fresh_exports: true,
          preferred_language: 'de',
        })
      }),
    )
    const user = userEvent.setup()
    renderWithProviders(<Page />)
    await user.click(toggle())
    await user.click(within(list()).getByRole('button', { name: 'Deutsch' }))
    await waitFor(() => expect(saved).toEqual([{ preferred_language: 'de' }]))
    expect(document.documentElement).toHaveAttribute('lang', 'de')
  })

  it('a reload right after the choice comes back in it: kept in this browser at once, the profile save sent with keepalive before the strings load', async () => {
    setTokensForTests('access', 'refresh')
    const sent: { body: unknown; keepalive: boolean; languageThen: string | undefined }[] = []
    server.use(
      http.patch('/api/user/profile/', async ({ request }) => {
        sent.push({ body: await request.json(), keepalive: request.keepalive, languageThen: i18n.resolvedLanguage })
        return HttpResponse.json({ id: 3, email: 'grace@example.com', preferred_language: 'pl' })
      }),
    )
    const user = userEvent.setup()
    renderWithProviders(<Page />)
    await user.click(toggle())
    fireEvent.click(within(list()).getByRole('button', { name: 'Polski' }))
    // synchronously, in the click itself: what lib/i18n.ts reads at the next start, and the service's page hint
    expect(localStorage.getItem('leads.language')).toBe('pl')
    expect(document.cookie).toContain('leads.lang=pl')
    await waitFor(() => expect(sent).toHaveLength(1))
    expect(sent[0]).toEqual({ body: { preferred_language: 'pl' }, keepalive: true, languageThen: 'en' })
    await waitFor(() => expect(document.documentElement).toHaveAttribute('lang', 'pl'))
  })
})
