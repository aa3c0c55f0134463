import { memo, startTransition, useId, useOptimistic, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { TextField } from '@/components/ui/field'
import type { ExportFormat } from '../filters'
import type { SetFilters } from '../hooks/use-search-filters'

const MAX_CAP = 2_147_483_647

/** The cap and the file format: part of the search, so they live in the address bar too. */
export const ExportOptions = memo(function ExportOptions({ cap, format, onChange }: { cap: number | null; format: ExportFormat; onChange: SetFilters }) {
  const { t } = useTranslation('search')
  const formatName = useId()
  // the chosen format is shown at once; the search it changes renders as a transition (the radios are
  // one group: both follow this one state, or the browser's unchecking of the other would be undone)
  const [shownFormat, showFormat] = useOptimistic(format)
  // the text being typed, and the address bar's cap it was last synced with (back/forward resets it)
  const [draft, setDraft] = useState({ text: cap === null ? '' : String(cap), cap })
  let text = draft.text
  if (draft.cap !== cap) {
    text = cap === null ? '' : String(cap)
    setDraft({ text, cap })
  }
  const trimmed = text.trim()
  const parsed = Number(trimmed)
  const invalid = trimmed !== '' && (!/^\d+$/.test(trimmed) || parsed < 1 || parsed > MAX_CAP)

  return (
    <div className="space-y-4">
      <TextField
        label={t('cap')}
        hint={t('capHint')}
        inputMode="numeric"
        autoComplete="off"
        value={text}
        error={invalid ? t('capInvalid') : undefined}
        onChange={(e) => {
          const next = e.target.value
          const n = Number(next.trim())
          const valid = next.trim() === '' || (/^\d+$/.test(next.trim()) && n >= 1 && n <= MAX_CAP)
          setDraft({ text: next, cap: draft.cap })
          const typed = next.trim() === '' ? null : n
          if (valid && typed !== cap) onChange((f) => ({ ...f, cap: typed }), { replace: true })
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
