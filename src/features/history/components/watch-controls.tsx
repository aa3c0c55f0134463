import { useForm, useWatch } from 'react-hook-form'
import { useEffect, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { z } from 'zod/mini'
import { zodResolver } from '@hookform/resolvers/zod'
import { Alert } from '@/components/ui/alert'
import { Button } from '@/components/ui/button'
import { TextField } from '@/components/ui/field'
import { errorMessage } from '@/lib/error-message'
import { applyFieldErrors } from '@/lib/form-errors'
import { formatNumber } from '@/lib/format'
import { useUpdateHistoryEntry } from '@/api/history/watched'
import type { HistoryEntry } from '@/api/history/get-search-history'

/**
 * "N new since your last export" for a watched search, from its free dry run; one click opens the
 * fresh-data confirmation (nothing is charged before it). `news`: undefined while checking.
 */
export function WatchedNews({ entry, news, onFresh }: { entry: HistoryEntry; news: number | undefined; onFresh: (id: string) => void }) {
  const { t, i18n } = useTranslation('history')
  if (!entry.watched) return null
  if (news === undefined) return <p className="mt-3 text-sm text-slate-600 dark:text-slate-400">{t('watch.checking')}</p>
  if (news === 0) return <p className="mt-3 text-sm text-slate-600 dark:text-slate-400">{t('watch.nothingNew')}</p>
  const formatted = formatNumber(i18n.language, news)
  return (
    <div className="mt-3 flex flex-wrap items-center justify-between gap-2 rounded-md border border-brand-100 bg-brand-50 p-3 text-sm dark:border-slate-700 dark:bg-slate-800">
      <p className="font-medium">{t('watch.news', { count: news, formatted })}</p>
      <Button onClick={() => onFresh(entry.search_id)}>{t('watch.review', { count: news, formatted })}</Button>
    </div>
  )
}

/** Watch / stop watching (originals only) and name a search, in place. */
export function WatchControls({ entry, nameMax }: { entry: HistoryEntry; nameMax: number }) {
  const { t } = useTranslation('history')
  const update = useUpdateHistoryEntry()
  const [renaming, setRenaming] = useState(false)
  const canWatch = entry.delta_of == null && (entry.watched || entry.status.toUpperCase() === 'COMPLETED')
  return (
    <>
      {canWatch && (
        <Button
          variant="secondary"
          aria-pressed={entry.watched}
          loading={update.isPending && update.variables?.patch.watched !== undefined}
          onClick={() => update.mutate({ searchId: entry.search_id, patch: { watched: !entry.watched } })}
        >
          {entry.watched ? t('watch.watching') : t('watch.watch')}
        </Button>
      )}
      {!renaming && (
        <Button variant="ghost" onClick={() => setRenaming(true)}>
          {entry.name ? t('watch.rename') : t('watch.name')}
        </Button>
      )}
      {update.isError && update.variables?.patch.watched !== undefined && (
        <Alert tone="error" className="w-full">
          {errorMessage(update.error)}
        </Alert>
      )}
      {renaming && <RenameForm entry={entry} nameMax={nameMax} onDone={() => setRenaming(false)} />}
    </>
  )
}

function RenameForm({ entry, nameMax, onDone }: { entry: HistoryEntry; nameMax: number; onDone: () => void }) {
  const { t, i18n } = useTranslation('history')
  const { t: tc } = useTranslation('common')
  const update = useUpdateHistoryEntry()
  const schema = z.object({ name: z.string().check(z.trim(), z.maxLength(nameMax, 'tooLong')) })
  const {
    register,
    handleSubmit,
    setError,
    setFocus,
    control,
    formState: { errors },
  } = useForm<{ name: string }>({ resolver: zodResolver(schema), defaultValues: { name: entry.name ?? '' } })
  // the service's limit (watched_searches.name_max_length): the input stops at it, and the count shows near it
  const used = (useWatch({ control, name: 'name' }) ?? '').length
  // the field the person asked for takes the focus
  useEffect(() => setFocus('name'), [setFocus])
  const onSubmit = ({ name }: { name: string }) =>
    update.mutate(
      { searchId: entry.search_id, patch: { name: name.trim() || null } },
      {
        onSuccess: onDone,
        onError: (e) => {
          if (!applyFieldErrors(e, setError, ['name'])) setError('root', { message: errorMessage(e) })
        },
      },
    )
  const message =
    errors.name?.message === 'tooLong' ? t('watch.tooLong', { max: formatNumber(i18n.language, nameMax) }) : errors.name?.message
  return (
    <form onSubmit={handleSubmit(onSubmit)} noValidate className="flex w-full flex-wrap items-end gap-2">
      <TextField
        label={t('watch.nameLabel')}
        hint={
          <>
            {t('watch.nameHint')}
            {used >= nameMax * 0.8 && (
              <span className="mt-0.5 block" data-testid="name-length">
                {tc('field.length', { used: formatNumber(i18n.language, used), max: formatNumber(i18n.language, nameMax) })}
              </span>
            )}
          </>
        }
        error={message ?? errors.root?.message}
        className="min-w-0 flex-1"
        maxLength={nameMax}
        {...register('name')}
      />
      <Button type="submit" loading={update.isPending}>
        {t('watch.save')}
      </Button>
      <Button variant="secondary" onClick={onDone} disabled={update.isPending}>
        {t('watch.cancel')}
      </Button>
    </form>
  )
}
