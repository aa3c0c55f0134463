import { isRouteErrorResponse, Link, useNavigate, useRouteError } from 'react-router'
import { useTranslation } from 'react-i18next'
import { Button, buttonClass } from '@/components/ui/button'
import { paths } from '@/config/paths'
import { errorMessage } from '@/lib/error-message'
import { useDocumentTitle } from '@/lib/use-document-title'

/**
 * The error page of every route: what happened in words, a retry (re-runs the route, or reloads
 * when a page's code could not be fetched, e.g. after a new deployment) and a way back.
 */
export function RouteError() {
  const error = useRouteError()
  const navigate = useNavigate()
  const { t } = useTranslation('common')
  useDocumentTitle(t('errorPage.title'))
  const chunkFailed = error instanceof TypeError && /dynamically imported module|Importing a module script/i.test(error.message)
  const detail = isRouteErrorResponse(error) ? error.statusText : chunkFailed ? null : errorMessage(error)

  return (
    <main id="main-content" className="mx-auto max-w-xl px-4 py-12 text-center">
      <h1 className="text-2xl font-semibold">{t('errorPage.title')}</h1>
      <p className="mt-3 text-slate-700 dark:text-slate-300">{t('errorPage.body')}</p>
      {detail && <p className="mt-2 text-sm text-slate-600 dark:text-slate-400">{detail}</p>}
      <div className="mt-6 flex flex-wrap justify-center gap-3">
        <Button onClick={() => (chunkFailed ? window.location.reload() : void navigate('.', { replace: true }))}>
          {t('errorPage.retry')}
        </Button>
        <Link to={paths.search} className={buttonClass('secondary')}>
          {t('errorPage.home')}
        </Link>
      </div>
    </main>
  )
}
