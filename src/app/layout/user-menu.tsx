import { Menu, MenuButton, MenuItem, MenuItems } from '@headlessui/react'
import { useTranslation } from 'react-i18next'
import { Link } from 'react-router'
import { paths } from '@/config/paths'
import { useProfile } from '@/lib/api/profile'
import { signOut } from '@/lib/session'

function initials(first: string, last: string, email: string) {
  const s = `${first.trim().charAt(0)}${last.trim().charAt(0)}`
  return (s || email.charAt(0)).toLocaleUpperCase()
}

const itemClass =
  'block w-full px-4 py-2 text-start text-sm text-slate-800 data-focus:bg-slate-100 dark:text-slate-100 dark:data-focus:bg-slate-800'

export function UserMenu() {
  const { t } = useTranslation('common')
  const { data: profile } = useProfile()
  return (
    <Menu>
      <MenuButton
        className="inline-flex size-10 shrink-0 items-center justify-center rounded-full bg-brand-600 text-sm font-semibold text-white hover:bg-brand-700"
        aria-label={t('userMenu.label')}
      >
        <span aria-hidden="true">{profile ? initials(profile.first_name, profile.last_name, profile.email) : '·'}</span>
      </MenuButton>
      <MenuItems
        anchor="bottom end"
        className="z-50 mt-2 w-64 rounded-md border border-slate-200 bg-white py-1 shadow-lg focus:outline-none dark:border-slate-700 dark:bg-slate-900"
      >
        {profile && (
          <div className="border-b border-slate-200 px-4 py-2 text-sm dark:border-slate-700">
            <p className="text-slate-600 dark:text-slate-400">{t('userMenu.signedInAs')}</p>
            <p className="truncate font-medium" dir="auto">
              {profile.email}
            </p>
          </div>
        )}
        <MenuItem>
          <Link to={paths.account} className={itemClass}>
            {t('userMenu.account')}
          </Link>
        </MenuItem>
        <MenuItem>
          <button type="button" onClick={signOut} className={itemClass}>
            {t('userMenu.signOut')}
          </button>
        </MenuItem>
      </MenuItems>
    </Menu>
  )
}
