import { useTranslation } from 'react-i18next'
import { Link } from 'react-router'
import { paths } from '@/config/paths'
import { useProfile } from '@/api/account/profile'
import { signOut } from '@/lib/session'
import { useDisclosure } from './use-disclosure'

function initials(first: string, last: string, email: string) {
  const s = `${first.trim().charAt(0)}${last.trim().charAt(0)}`
  return (s || email.charAt(0)).toLocaleUpperCase()
}

/** The shell has one user menu; a fixed id lets tests and aria-controls find its panel. */
export const USER_MENU_ID = 'user-menu'

const itemClass =
  'block w-full px-4 py-2 text-start text-sm text-slate-800 hover:bg-slate-100 focus-visible:bg-slate-100 focus-visible:outline-2 focus-visible:-outline-offset-2 focus-visible:outline-brand-600 dark:text-slate-100 dark:hover:bg-slate-800 dark:focus-visible:bg-slate-800'

/**
 * The account menu as a disclosure (a button with aria-expanded/aria-controls showing a list of a
 * link and a button, `useDisclosure`): Tab and Enter reach the items. The panel opens under the
 * button's end edge (right in English, left in Hebrew).
 */
export function UserMenu() {
  const { t } = useTranslation('common')
  const { data: profile } = useProfile()
  const { open, setOpen, rootRef, buttonRef, onBlur } = useDisclosure()

  return (
    <div ref={rootRef} className="relative flex shrink-0" onBlur={onBlur}>
      <button
        ref={buttonRef}
        type="button"
        className="inline-flex size-10 shrink-0 items-center justify-center rounded-full bg-brand-600 text-sm font-semibold text-white hover:bg-brand-700"
        aria-label={t('userMenu.label')}
        aria-expanded={open}
        aria-controls={USER_MENU_ID}
        onClick={() => setOpen((o) => !o)}
      >
        <span aria-hidden="true">{profile ? initials(profile.first_name, profile.last_name, profile.email) : '·'}</span>
      </button>
      <div
        id={USER_MENU_ID}
        hidden={!open}
        className="absolute end-0 top-full z-50 mt-2 w-64 rounded-md border border-slate-200 bg-white py-1 shadow-lg dark:border-slate-700 dark:bg-slate-900"
      >
        {profile && (
          <div className="border-b border-slate-200 px-4 py-2 text-sm dark:border-slate-700">
            <p className="text-slate-600 dark:text-slate-400">{t('userMenu.signedInAs')}</p>
            {/* a Latin address inside right-to-left text keeps its own order, and a long one is
                cut at its end (the part that names the person stays); aligned with the label */}
            <p className="truncate font-medium rtl:text-right" dir="auto">
              <bdi>{profile.email}</bdi>
            </p>
          </div>
        )}
        <ul>
          <li>
            <Link to={paths.account} className={itemClass} onClick={() => setOpen(false)}>
              {t('userMenu.account')}
            </Link>
          </li>
          <li>
            <button type="button" onClick={signOut} className={itemClass}>
              {t('userMenu.signOut')}
            </button>
          </li>
        </ul>
      </div>
    </div>
  )
}
