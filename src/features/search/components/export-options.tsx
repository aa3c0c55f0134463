import { memo, startTransition, useEffect, useId, useOptimistic, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { TextField } from '@/components/ui/field'
import { formatNumber } from '@/lib/format'
import { loadPageNamespaces } from '@/lib/i18n'
import type { WholeNumber } from '@/lib/parse-number'
import type { ExportFormat } from '@/domain/search-filters'
import type { SetFilters } from '../hooks/use-search-filters'

const MAX_CAP = 2_147_483_647

type Parse = typeof import('@/lib/parse-number').parseWholeNumber
type Reading = WholeNumber | { ok: true; value: number | null }

const textOf = (cap: number | null) => (cap === null ? '' : String(cap))

/**
 * What the cap field tells the page: null while its text stands for a cap (none when empty), which the
 * address then holds; otherwise why "Export…" is off (or '' while the text is not read yet). The page
 * keeps it off meanwhile, so the confirmation can only ever offer the amount the person typed.
 */
export type CapCheck = (problem: string | null) => void

/** The cap and the file format: part of the search, so they live in the address bar too. */
export const ExportOptions = memo(function ExportOptions({
  cap,
  format,
  onChange,
  onCapCheck,
}: {
  cap: number | null
  format: ExportFormat
  onChange: SetFilters
  onCapCheck?: CapCheck
}) {
  const { t, i18n } = useTranslation('search')
  // what is said of a cap that cannot be read loads with the reader (below), with the export strings
  const { t: te } = useTranslation('exports')
  const lng = i18n.language
  const formatName = useId()
  // the chosen format is shown at once; the search it changes renders as a transition (the radios are
  // one group: both follow this one state, or the browser's unchecking of the other would be undone)
  const [shownFormat, showFormat] = useOptimistic(format)
  // The reader of typed numbers (lib/parse-number.ts, with @internationalized/number) is not part of the
  // search page's first load: it loads when the field is first focused or typed into. Until then a text
  // other than the address's own cap has no verdict, and nothing can be exported with it.
  const [parse, setParse] = useState<Parse | null>(null)
  const needParser = () => {
    if (!parse)
      Promise.all([import('@/lib/parse-number'), loadPageNamespaces(['exports'])]).then(
        ([m]) => setParse(() => m.parseWholeNumber),
        () => undefined,
      )
  }
  // the text being typed, and the address bar's cap it was last synced with (back/forward resets it)
  const [draft, setDraft] = useState({ text: textOf(cap), cap })
  // the address's cap as last seen: the text is replaced only when the address itself moves to a cap
  // the text does not stand for (back/forward, a chip removed), not while it is still catching up with
  // what was just typed (the search updates as a transition, so for a render or two it lags behind)
  const [seenCap, setSeenCap] = useState(cap)
  let text = draft.text
  if (cap !== seenCap) {
    setSeenCap(cap)
    if (cap !== draft.cap) {
      text = textOf(cap)
      setDraft({ text, cap })
    }
  }
  // an empty field is no cap; the address's own cap is plain digits, the same in every language
  const read = (value: string): Reading | undefined =>
    value.trim() === ''
      ? { ok: true, value: null }
      : value === textOf(cap)
        ? { ok: true, value: cap }
        : parse?.(value, lng, { max: MAX_CAP })
  // the cap a reading stands for: null = none, undefined = none it can stand for (invalid, or not read yet)
  const capOf = (r: Reading | undefined) => (r?.ok ? r.value : undefined)
  const reading = read(text)
  const typedCap = capOf(reading)
  const problem = reading && !reading.ok ? reading.reason : null
  const error =
    problem === null
      ? undefined
      : problem === 'tooSmall'
        ? t('capInvalid')
        : problem === 'tooLarge'
          ? te('capField.tooLarge', { max: formatNumber(lng, MAX_CAP) })
          : te(`capField.${problem as 'decimal' | 'grouping' | 'notANumber'}`, { example: formatNumber(lng, 10_000) })
  const hint = typedCap != null ? t('capUnderstood', { count: typedCap, formatted: formatNumber(lng, typedCap) }) : t('capHint')

  // a reading that arrives after the keystroke (the parser loaded, the language changed) moves the address too
  useEffect(() => {
    if (typedCap === undefined || typedCap === cap) return
    setDraft((d) => ({ ...d, cap: typedCap }))
    onChange((f) => ({ ...f, cap: typedCap }), { replace: true })
  }, [typedCap, cap, onChange])
  const check = typedCap === undefined ? (error ? te('capField.blocked', { reason: error }) : '') : null
  useEffect(() => onCapCheck?.(check), [onCapCheck, check])

  return (
    <div className="space-y-4">
      <TextField
        label={t('cap')}
        hint={hint}
        inputMode="numeric"
        autoComplete="off"
        value={text}
        error={error}
        onFocus={needParser}
        onChange={(e) => {
          const next = e.target.value
          needParser()
          const typed = capOf(read(next))
          // from the newest draft, not this render's: a reading that arrived with the parser (the effect
          // above) may have set its cap and sent it to the address without a render since, and a text
          // standing for no cap then kept the older one, so the address's cap later replaced the text
          setDraft((d) => ({ text: next, cap: typed !== undefined ? typed : d.cap }))
          if (typed !== undefined && typed !== cap) onChange((f) => ({ ...f, cap: typed }), { replace: true })
        }}
      />
      <fieldset>
        <legend className="mb-1 text-sm font-medium">{t('format')}</legend>
        <div className="flex flex-wrap gap-4">
          {(['csv', 'excel'] as ExportFormat[]).map((kind) => (
            <label key={kind} className="flex min-h-10 items-center gap-2 text-sm">
              <input
                type="radio"
                name={formatName}
                value={kind}
                className="size-4 accent-brand-600"
                checked={shownFormat === kind}
                onChange={() =>
                  startTransition(() => {
                    showFormat(kind)
                    onChange((f) => ({ ...f, format: kind }))
                  })
                }
              />
              <bdi>{t(kind)}</bdi>
            </label>
          ))}
        </div>
      </fieldset>
    </div>
  )
})
