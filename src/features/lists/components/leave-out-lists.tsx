import { useQuery } from '@tanstack/react-query'
import { startTransition, useEffect, useId, useOptimistic, useState, type ComponentType, type ReactNode } from 'react'
import { useTranslation } from 'react-i18next'
import { Link } from 'react-router'
import { Card } from '@/components/ui/card'
import { paths } from '@/config/paths'
import { useCapability } from '@/api/capabilities/get-capabilities'
import { listsOptions } from '@/api/lists/get-lists'
import { MAX_EXCLUDE_LISTS, type SearchFilters } from '@/domain/search-filters'
import { formatNumber } from '@/lib/format'
import { loadPageNamespaces } from '@/lib/i18n'

type FiltersUpdate = (change: (f: SearchFilters) => SearchFilters, options?: { replace?: boolean }) => void

/** The lists' words, loaded once something of theirs is shown (most searches never show any). */
function useListWords(wanted: boolean) {
  const [ready, setReady] = useState(false)
  useEffect(() => {
    if (wanted) void loadPageNamespaces(['lists']).then(() => setReady(true))
  }, [wanted])
  return ready
}

export interface LeaveOutListsProps {
  filters: SearchFilters
  onChange: FiltersUpdate
  /** How many businesses matching the search the chosen lists left out (the preview's `excluded_by_lists`). */
  excluded: number | undefined
}

/**
 * "Leave out businesses in my lists" (extension `lists`): the account's matched lists to tick, part of the
 * search like any filter, and how many they left out. Nothing shows while the service's capabilities or the
 * lists load, without the extension, nor when no list is matched yet.
 */
export function LeaveOutLists({ filters, onChange, excluded }: LeaveOutListsProps) {
  const { t, i18n } = useTranslation('lists')
  const hintId = useId()
  const offeredByService = useCapability('lists') === true
  const lists = useQuery({ ...listsOptions(), enabled: offeredByService })
  const matched = lists.data?.filter((l) => l.status === 'matched') ?? []
  const chosen = filters.excludeLists
  const words = useListWords(matched.length > 0)

  // a list deleted since (or one of another account, in a pasted link) would make the service refuse the
  // whole search: it is dropped from the search as soon as the account's lists say it is not there
  const known = lists.data
  useEffect(() => {
    if (!known || !chosen.length) return
    const ids = new Set(known.map((l) => l.id))
    if (chosen.every((id) => ids.has(id))) return
    onChange((f) => ({ ...f, excludeLists: f.excludeLists.filter((id) => ids.has(id)) }), { replace: true })
  }, [known, chosen, onChange])

  if (!matched.length || !words) return null
  const toggle = (id: string, on: boolean) =>
    onChange((f) => ({
      ...f,
      excludeLists: on
        ? [...f.excludeLists.filter((x) => x !== id), id].slice(0, MAX_EXCLUDE_LISTS)
        : f.excludeLists.filter((x) => x !== id),
    }))

  return (
    <Card className="mt-6">
      <fieldset aria-describedby={hintId}>
        <legend className="text-base font-semibold">{t('leaveOut.title')}</legend>
        <p id={hintId} className="mt-1 text-sm text-slate-600 dark:text-slate-400">
          {t('leaveOut.hint')}
        </p>
        <ul className="mt-3 space-y-1">
          {matched.map((l) => (
            <li key={l.id}>
              <ListCheckbox name={l.name} checked={chosen.includes(l.id)} onToggle={(on) => toggle(l.id, on)} />
            </li>
          ))}
        </ul>
      </fieldset>
      {chosen.length > 0 && excluded !== undefined && (
        <p className="mt-2 text-sm font-medium" role="status" data-testid="lists-left-out" data-count={excluded}>
          {t('leaveOut.leftOut', { count: excluded, formatted: formatNumber(i18n.language, excluded) })}
        </p>
      )}
      <Link
        to={paths.lists}
        className="mt-2 inline-block text-sm font-medium text-brand-700 underline underline-offset-2 dark:text-brand-100"
      >
        {t('leaveOut.manage')}
      </Link>
    </Card>
  )
}

export interface ListChipsProps {
  ids: readonly string[]
  onChange: FiltersUpdate
  /** The search page's own chip, so that these look and behave as its others. */
  Chip: ComponentType<{ label: string; removeLabel: string; onRemove: () => void }>
}

/**
 * One list to tick: it shows the person's choice in the frame after the click (an optimistic state), while the
 * search it changes renders as a transition, as the search builder's own checkboxes do.
 */
function ListCheckbox({ name, checked, onToggle }: { name: string; checked: boolean; onToggle: (on: boolean) => void }) {
  const [shown, show] = useOptimistic(checked)
  return (
    <label className="flex min-h-10 items-center gap-3">
      <input
        type="checkbox"
        className="size-4 shrink-0 accent-brand-600"
        checked={shown}
        onChange={(e) => {
          const on = e.target.checked
          startTransition(() => {
            show(on)
            onToggle(on)
          })
        }}
      />
      <bdi className="min-w-0 break-words">{name}</bdi>
    </label>
  )
}

/** The search's chips of the lists it leaves out, named from the account's lists (`<li>`s of the chips' list). */
export function ListChips({ ids, onChange, Chip }: ListChipsProps): ReactNode {
  const { t } = useTranslation(['lists', 'search'])
  const lists = useQuery(listsOptions())
  const words = useListWords(true)
  return ids.map((id): ReactNode => {
    const name = lists.data?.find((l) => l.id === id)?.name ?? (lists.isError ? t('leaveOut.unnamed', { id }) : null)
    // the name is the person's text: isolated (FSI…PDI), so its direction cannot reorder the words around it
    const label = words && name !== null ? t('leaveOut.chip', { name: `\u2068${name}\u2069` }) : '…'
    return (
      <Chip
        key={id}
        label={label}
        removeLabel={t('search:remove', { name: label })}
        onRemove={() => onChange((f) => ({ ...f, excludeLists: f.excludeLists.filter((x) => x !== id) }))}
      />
    )
  })
}
