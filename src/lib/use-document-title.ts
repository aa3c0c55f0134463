import { useEffect } from 'react'
import { useTranslation } from 'react-i18next'

/** Sets `document.title` to "<page> · Leads" in the active language while the page is shown. */
export function useDocumentTitle(pageTitle: string) {
  const { t } = useTranslation('common')
  const appName = t('appName')
  useEffect(() => {
    document.title = pageTitle ? `${pageTitle} · ${appName}` : appName
  }, [pageTitle, appName])
}
