import { useQueryClient, type Query } from '@tanstack/react-query'
import { useCallback, useSyncExternalStore } from 'react'
import { useTranslation } from 'react-i18next'
import { Button } from '@/components/ui/button'
import { useOnline } from '@/lib/use-online'

/** fetch rejects with a TypeError when the network fails (lib/error-message.ts reads it the same way). */
const failedOnNetwork = (query: Query) => query.state.status === 'error' && query.state.error instanceof TypeError

const neverFailed = () => false

/**
 * Says when what the page shows (a count, a balance) may be out of date, so an old number is not taken
 * for the answer to a changed search. Offline as the browser tells it (its `offline` and `online`
 * events, through React Query's onlineManager: the same signal that pauses the queries and refetches
 * them on reconnect); or online, but a query the page shows failed because the service could not be
 * reached, which no event will retry: then a button does. The status region is always there, so a
 * screen reader hears the notice when it appears.
 */
export default function OfflineNotice() {
  const { t } = useTranslation('common')
  const queryClient = useQueryClient()
  const cache = queryClient.getQueryCache()
  const online = useOnline()
  const unreachable = useSyncExternalStore(
    cache.subscribe,
    useCallback(() => cache.findAll({ type: 'active', predicate: failedOnNetwork }).length > 0, [cache]),
    neverFailed,
  )
  const retry = () => void queryClient.refetchQueries({ type: 'active', predicate: failedOnNetwork })
  return (
    <div role="status">
      {(!online || unreachable) && (
        <div className="border-t border-amber-200 bg-amber-50 text-sm text-amber-900 dark:border-amber-900 dark:bg-amber-950 dark:text-amber-100">
          <div className="mx-auto flex max-w-7xl flex-wrap items-center gap-x-3 gap-y-1 px-3 py-2 sm:px-6">
            <p data-testid="offline-notice">{online ? t('offline.unreachable') : t('offline.text')}</p>
            {online && (
              <Button variant="secondary" onClick={retry}>
                {t('errorPage.retry')}
              </Button>
            )}
          </div>
        </div>
      )}
    </div>
  )
}
