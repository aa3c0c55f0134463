import { useTranslation } from 'react-i18next'
import { Link } from 'react-router'
import { buttonClass } from '@/components/ui/button'
import { paths } from '@/config/paths'
import { useDocumentTitle } from '@/lib/use-document-title'

export function Component() {
  const { t } = useTranslation('common')
  useDocumentTitle(t('notFound.title'))
  return (
    <main id="main" className="mx-auto max-w-xl px-4 py-16 text-center">
      <p className="text-5xl font-bold text-brand-600 dark:text-brand-100" aria-hidden="true">
        404
      </p>
      <h1 className="mt-4 text-2xl font-semibold">{t('notFound.title')}</h1>
      <p className="mt-3 text-slate-700 dark:text-slate-300">{t('notFound.body')}</p>
      <Link to={paths.search} className={buttonClass('primary', 'mt-6')}>
        {t('notFound.home')}
      </Link>
    </main>
  )
}
