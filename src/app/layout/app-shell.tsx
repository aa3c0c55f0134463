import {
  createElement,
  lazy,
  Suspense,
  useCallback,
  useEffect,
  useRef,
  useState,
  type ComponentType,
  type ReactNode,
  type RefObject,
} from 'react'
import { useTranslation } from 'react-i18next'
import { Link, NavLink, useLocation } from 'react-router'
import { buttonClass } from '@/components/ui/button'
import { paths } from '@/config/paths'
import { useCapability } from '@/api/capabilities/get-capabilities'
import { useProfile } from '@/api/account/profile'
import { changeLanguage, i18n, loadPageNamespaces } from '@/lib/i18n'
import { useOnline } from '@/lib/use-online'
import { useAfterFirstLoad } from '@/lib/use-after-first-load'
import { lastSearchPath } from '@/lib/last-search'
import OfflineNotice from '@/components/offline-notice'
import { CreditBalance } from './credit-balance'
import { LanguageSwitcher } from './language-switcher'
import { UserMenu } from './user-menu'

// only an account with an unconfirmed address (an extension) sees the banner: its resend mutation and
// throttle notice are not part of everyone's first load
const ConfirmEmailBanner = lazy(() => import('./confirm-banner').then((m) => ({ default: m.ConfirmEmailBanner })))

// the count of new leads in watched searches (extension watched_searches): only where the service offers it
const loadWatchedNewsBadge = () =>
  Promise.all([import('@/features/history/components/watched-news-badge'), loadPageNamespaces(['history'])]).then(([m]) => m.default)

const NAV = [
  { to: paths.search, key: 'nav.search' },
  { to: paths.history, key: 'nav.history' },
  { to: paths.lists, key: 'nav.lists', capability: 'lists' },
  { to: paths.apiKeys, key: 'nav.apiKeys' },
  // only where the service offers the extension (asked once per session, beside the watched-search badge)
  { to: paths.webhooks, key: 'nav.webhooks', capability: 'webhooks' },
  { to: paths.account, key: 'nav.account' },
  { to: paths.plans, key: 'nav.plans' },
] as const

const linkClass = ({ isActive }: { isActive: boolean }) =>
  `rounded-md px-3 py-2 text-sm font-medium ${
    isActive
      ? 'bg-brand-50 text-brand-700 dark:bg-slate-800 dark:text-white'
      : 'text-slate-700 hover:bg-slate-100 dark:text-slate-200 dark:hover:bg-slate-800'
  }`

/**
 * A component whose code waits until the first load is over and the browser is idle (check-budgets
 * counts it apart, as deferred), asked for only while `wanted` and online. React.lazy would throw a
 * chunk that cannot be fetched (the network went away meanwhile) to the route's error boundary, losing
 * the whole page for a detail: it is left out, and asked for again when the browser is back online.
 */
function useDeferredComponent(load: () => Promise<ComponentType>, wanted = true): ReactNode {
  const settled = useAfterFirstLoad()
  const online = useOnline()
  const [Component, setComponent] = useState<ComponentType | null>(null)
  useEffect(() => {
    if (!wanted || !settled || !online || Component) return
    let current = true
    load().then(
      (loaded) => current && setComponent(() => loaded),
      () => undefined,
    )
    return () => {
      current = false
    }
  }, [load, wanted, settled, online, Component])
  return Component ? createElement(Component) : null
}

/** Signed in only (the capabilities need the session and its query client); the count is not needed to use the page. */
function HistoryNavBadge() {
  return useDeferredComponent(loadWatchedNewsBadge, useCapability('watched_searches') === true)
}

/** A link to an extension's page: nothing until the service says it offers it (signed in only). */
function CapabilityNavLink({ capability, children }: { capability: string; children: ReactNode }) {
  return useCapability(capability) === true ? children : null
}

/** Follows the profile's language whenever the profile says something new (sign-in, account page). */
function useProfileLanguage() {
  const { data: profile } = useProfile()
  const preferred = profile?.preferred_language
  useEffect(() => {
    if (preferred && preferred !== i18n.resolvedLanguage) void changeLanguage(preferred)
  }, [preferred])
}

function MenuIcon({ open }: { open: boolean }) {
  return (
    <svg viewBox="0 0 24 24" className="size-6" fill="none" stroke="currentColor" strokeWidth="2" aria-hidden="true">
      {open ? <path d="M6 6l12 12M18 6L6 18" strokeLinecap="round" /> : <path d="M4 7h16M4 12h16M4 17h16" strokeLinecap="round" />}
    </svg>
  )
}

/** What Tab can reach inside `root`, leaving out what a closed disclosure hides. */
function focusables(root: HTMLElement): HTMLElement[] {
  return [
    ...root.querySelectorAll<HTMLElement>(
      'a[href], button:not([disabled]), input:not([disabled]), select, [tabindex]:not([tabindex="-1"])',
    ),
  ].filter((el) => !el.closest('[hidden]'))
}

/**
 * While the mobile drawer is open the focus cycles through its button and its content: Tab after the
 * last item comes back to the button, Shift+Tab before the button goes to the last item, and Escape
 * closes it and puts the focus on the button. Focus reaching the page some other way (a click)
 * closes it.
 */
function useDrawerFocus(
  open: boolean,
  close: () => void,
  buttonRef: RefObject<HTMLButtonElement | null>,
  drawerRef: RefObject<HTMLDivElement | null>,
) {
  useEffect(() => {
    if (!open) return
    const onKeyDown = (e: KeyboardEvent) => {
      const button = buttonRef.current
      const drawer = drawerRef.current
      if (!button || !drawer) return
      if (e.key === 'Escape') {
        close()
        button.focus()
        return
      }
      if (e.key !== 'Tab') return
      const cycle = [button, ...focusables(drawer)]
      const at = cycle.indexOf(document.activeElement as HTMLElement)
      const next = at === -1 ? 0 : (at + (e.shiftKey ? -1 : 1) + cycle.length) % cycle.length
      e.preventDefault()
      cycle[next]?.focus()
    }
    const onFocusIn = (e: FocusEvent) => {
      const t = e.target
      if (t instanceof Node && !drawerRef.current?.contains(t) && !buttonRef.current?.contains(t)) close()
    }
    document.addEventListener('keydown', onKeyDown)
    document.addEventListener('focusin', onFocusIn)
    return () => {
      document.removeEventListener('keydown', onKeyDown)
      document.removeEventListener('focusin', onFocusIn)
    }
  }, [open, close, buttonRef, drawerRef])
}

export function AppShell({ signedIn, children }: { signedIn: boolean; children: ReactNode }) {
  const { t } = useTranslation('common')
  const location = useLocation()
  const { data: profile } = useProfile()
  const [menuOpen, setMenuOpen] = useState(false)
  const [menuPath, setMenuPath] = useState(location.pathname)
  // the mobile navigation closes once the person has gone somewhere
  if (menuPath !== location.pathname) {
    setMenuPath(location.pathname)
    setMenuOpen(false)
  }
  const closeMenu = useCallback(() => setMenuOpen(false), [])
  const menuButtonRef = useRef<HTMLButtonElement>(null)
  const drawerRef = useRef<HTMLDivElement>(null)
  useDrawerFocus(menuOpen, closeMenu, menuButtonRef, drawerRef)
  useProfileLanguage()
  const nav = signedIn ? NAV : NAV.filter((n) => n.to === paths.plans)
  const account = profile === undefined ? undefined : String(profile.id)
  const label = (item: (typeof NAV)[number]) => (
    <>
      {t(item.key)}
      {signedIn && item.to === paths.history && <HistoryNavBadge />}
    </>
  )
  const link = (item: (typeof NAV)[number]) => {
    const navLink = (
      // "Search" opens the account's last search (the search stays while the person looks elsewhere)
      <NavLink key={item.to} to={item.to === paths.search ? lastSearchPath(account) : item.to} className={linkClass}>
        {label(item)}
      </NavLink>
    )
    return 'capability' in item ? (
      <CapabilityNavLink key={item.to} capability={item.capability}>
        {navLink}
      </CapabilityNavLink>
    ) : (
      navLink
    )
  }

  return (
    <div className="flex min-h-dvh flex-col">
      <a
        href="#main"
        className="sr-only focus:not-sr-only focus:fixed focus:start-2 focus:top-2 focus:z-[60] focus:rounded-md focus:bg-white focus:px-4 focus:py-2 focus:text-sm focus:font-medium focus:text-slate-900 focus:shadow"
      >
        {t('skipToContent')}
      </a>
      <header className="sticky top-0 z-40 border-b border-slate-200 bg-white dark:border-slate-800 dark:bg-slate-900">
        <div className="mx-auto flex max-w-7xl flex-wrap items-center gap-x-3 gap-y-1 px-3 py-2 sm:px-6">
          {signedIn && (
            <button
              ref={menuButtonRef}
              type="button"
              className={buttonClass('ghost', 'px-2 lg:hidden')}
              aria-expanded={menuOpen}
              aria-controls="mobile-nav"
              aria-label={menuOpen ? t('nav.closeMenu') : t('nav.openMenu')}
              onClick={() => setMenuOpen((o) => !o)}
            >
              <MenuIcon open={menuOpen} />
            </button>
          )}
          {/* like the navigation's "Search", the logo returns to the account's last search */}
          <Link to={signedIn ? lastSearchPath(account) : paths.plans} className="text-lg font-bold text-brand-700 dark:text-brand-100">
            {t('appName')}
          </Link>
          <nav aria-label={t('nav.label')} className={`${signedIn ? 'hidden lg:flex' : 'flex'} items-center gap-1`}>
            {nav.map(link)}
          </nav>
          {signedIn && (
            <CreditBalance className="order-last w-full border-t border-slate-100 pt-1 sm:order-none sm:ms-auto sm:w-auto sm:border-0 sm:pt-0 dark:border-slate-800" />
          )}
          <div className={`${signedIn ? 'ms-auto sm:ms-0' : 'ms-auto'} flex items-center gap-2`}>
            <LanguageSwitcher className={signedIn ? 'hidden w-36 sm:block' : 'w-32 sm:w-36'} />
            {signedIn ? (
              <UserMenu />
            ) : (
              <>
                <Link
                  to={`${paths.signIn}?next=${encodeURIComponent(location.pathname)}`}
                  className={buttonClass('ghost', 'whitespace-nowrap px-3')}
                >
                  {t('header.signIn')}
                </Link>
                {/* on a phone, sign-in links to sign-up; there is no room for both */}
                <div className="hidden sm:block">
                  <Link to={paths.signUp} className={buttonClass('primary', 'whitespace-nowrap px-3')}>
                    {t('header.signUp')}
                  </Link>
                </div>
              </>
            )}
          </div>
        </div>
        <OfflineNotice />
        {signedIn && menuOpen && (
          <div id="mobile-nav" ref={drawerRef} className="border-t border-slate-200 px-3 pb-3 lg:hidden dark:border-slate-800">
            <nav aria-label={t('nav.label')} className="flex flex-col gap-1 pt-2">
              {NAV.map(link)}
            </nav>
            <LanguageSwitcher inline className="mt-3 sm:hidden" />
          </div>
        )}
      </header>
      <div id="main" tabIndex={-1} className="mx-auto w-full max-w-7xl flex-1 px-3 py-6 focus:outline-none sm:px-6">
        {signedIn && profile?.email_confirmed === false && (
          <Suspense fallback={null}>
            <ConfirmEmailBanner />
          </Suspense>
        )}
        {children}
      </div>
    </div>
  )
}
