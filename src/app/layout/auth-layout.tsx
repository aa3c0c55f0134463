import type { ReactNode } from 'react'
import { Link } from 'react-router'
import { useTranslation } from 'react-i18next'
import { paths } from '@/config/paths'
import { LanguageSwitcher } from './language-switcher'

/** The frame of the signed-out pages: brand, language, one centred card. */
export function AuthLayout({ title, intro, children }: { title: string; intro?: ReactNode; children: ReactNode }) {
  const { t } = useTranslation('common')
  return (
    <div className="flex min-h-dvh flex-col">
      <header className="flex items-center justify-between gap-4 px-4 py-3 sm:px-6">
        <Link to={paths.plans} className="text-lg font-bold text-brand-700 dark:text-brand-100">
          {t('appName')}
        </Link>
        <LanguageSwitcher className="w-40" />
      </header>
      <main id="main" className="flex flex-1 items-start justify-center px-4 pb-12 pt-6 sm:pt-12">
        <div className="w-full max-w-md rounded-lg border border-slate-200 bg-white p-6 shadow-sm sm:p-8 dark:border-slate-800 dark:bg-slate-900">
          <h1 className="text-2xl font-semibold">{title}</h1>
          {intro && <p className="mt-2 text-sm text-slate-600 dark:text-slate-300">{intro}</p>}
          <div className="mt-6">{children}</div>
        </div>
      </main>
    </div>
  )
}
