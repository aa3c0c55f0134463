import { formatNumber } from '@/lib/format'
import { i18n } from '@/lib/i18n'
import { useWatchedNews } from '@/api/history/watched-news'

/**
 * Beside "Exports history" in the navigation: how many leads are new across the watched searches
 * (extension `watched_searches`). Loaded by the shell only when the service offers the extension, after
 * the first load, with the history page's English strings (its sentence lives there).
 */
export default function WatchedNewsBadge() {
  // i18n.t rather than useTranslation: sharing react-i18next's hook with the shell would split the shared
  // chunk the first load already fetches (one more request); the shell re-renders this on a language change
  const { total } = useWatchedNews()
  if (total <= 0) return null
  const formatted = formatNumber(i18n.language, total)
  return (
    <>
      <span
        aria-hidden="true"
        data-testid="watched-news-badge"
        className="ms-1.5 inline-block min-w-5 rounded-full bg-brand-700 px-1.5 text-center text-xs font-semibold leading-5 text-white tabular-nums dark:bg-brand-100 dark:text-slate-900"
      >
        {formatted}
      </span>
      <span className="sr-only"> ({i18n.t('history:watch.navBadge', { count: total, formatted })})</span>
    </>
  )
}
