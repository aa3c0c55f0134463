import { useQuery } from '@tanstack/react-query'
import { useTranslation } from 'react-i18next'
import { useDownloadReport } from '@/api/lists/download-report'
import type { ListDetail } from '@/api/lists/get-list'
import { reportOptions } from '@/api/lists/get-report'
import { Alert } from '@/components/ui/alert'
import { Button } from '@/components/ui/button'
import { Card } from '@/components/ui/card'
import { errorMessage } from '@/lib/error-message'
import { formatNumber } from '@/lib/format'
import { RowsTable } from './rows-table'

const RULES = ['domain', 'phone', 'name_city', 'manual'] as const
const OUTCOMES = [
  ['matched', 'border-emerald-300 dark:border-emerald-800'],
  ['ambiguous', 'border-amber-300 dark:border-amber-700'],
  ['unmatched', 'border-slate-300 dark:border-slate-700'],
] as const

/** Counts by result and by rule, the report file, and the rows to check by hand. */
export function MatchReport({ list }: { list: ListDetail }) {
  const { t, i18n } = useTranslation('lists')
  const n = (v: number) => formatNumber(i18n.language, v)
  const report = useQuery(reportOptions(list.id))
  const download = useDownloadReport()

  return (
    <>
      <Card
        title={t('report.title')}
        actions={
          <Button variant="secondary" loading={download.isPending} onClick={() => download.mutate(list.id)}>
            {t('report.download')}
          </Button>
        }
      >
        {download.isError && (
          <Alert tone="error" className="mb-4">
            {t('report.downloadFailed', { detail: errorMessage(download.error) })}
          </Alert>
        )}
        {report.isPending && <div className="h-24 animate-pulse rounded-lg bg-slate-200 motion-reduce:animate-none dark:bg-slate-800" />}
        {report.isError && (
          <Alert tone="error" title={t('report.loadError')}>
            <Button variant="secondary" className="mt-2" onClick={() => void report.refetch()}>
              {t('retry')}
            </Button>
          </Alert>
        )}
        {report.data && (
          <div className="space-y-4">
            <h3 className="sr-only">{t('report.counts')}</h3>
            <dl className="grid gap-3 sm:grid-cols-3" data-testid="list-report-counts">
              {OUTCOMES.map(([outcome, border]) => (
                <div key={outcome} className={`rounded-lg border-s-4 bg-slate-50 px-4 py-3 dark:bg-slate-800 ${border}`}>
                  <dt className="text-sm font-medium">{t(`report.${outcome}`)}</dt>
                  <dd className="text-2xl font-semibold tabular-nums" data-testid={`list-report-${outcome}`}>
                    {n(report.data[outcome])}
                  </dd>
                  <dd className="text-xs text-slate-600 dark:text-slate-400">{t(`report.${outcome}Hint`)}</dd>
                </div>
              ))}
            </dl>
            <div>
              <h3 className="text-sm font-semibold">{t('report.byRule')}</h3>
              <dl className="mt-2 grid gap-x-6 gap-y-1 text-sm sm:grid-cols-2">
                {RULES.map((rule) => (
                  <div key={rule} className="flex justify-between gap-3 border-b border-slate-100 py-1 dark:border-slate-800">
                    <dt>{t(`report.rules.${rule}`)}</dt>
                    <dd className="tabular-nums">{n(report.data.by_rule[rule] ?? 0)}</dd>
                  </div>
                ))}
              </dl>
            </div>
          </div>
        )}
      </Card>
      <RowsTable list={list} />
    </>
  )
}
