import {
  Combobox,
  ComboboxButton,
  ComboboxInput,
  ComboboxOption,
  ComboboxOptions,
  Description,
  Field,
  Label,
} from '@headlessui/react'
import type { ReactNode } from 'react'
import { inputClass } from './field'
import { Spinner } from './spinner'

export interface MultiComboboxProps<T> {
  label: ReactNode
  /** Options matching the current query (filtering is the caller's: local or on the server). */
  options: readonly T[]
  value: readonly T[]
  onChange: (value: T[]) => void
  getKey: (item: T) => string
  getLabel: (item: T) => string
  /** Option content; defaults to the label. Receives the query to highlight the matched part. */
  renderOption?: (item: T, query: string) => ReactNode
  query: string
  onQueryChange: (query: string) => void
  placeholder?: string
  hint?: ReactNode
  /** Shown when the query matches nothing. */
  emptyText?: ReactNode
  /** Shown under the options (e.g. "type to narrow"). */
  footer?: ReactNode
  loading?: boolean
  loadingLabel?: string
  disabled?: boolean
  /** Accessible name of the open/close button. */
  toggleLabel: string
  className?: string
}

/**
 * Multi-select combobox (Headless UI: ARIA combobox pattern, arrow keys, Enter to toggle, Escape,
 * active descendant announced to screen readers). Chosen values are shown elsewhere (as chips);
 * here they carry a check mark and aria-selected.
 */
export function MultiCombobox<T>({
  label,
  options,
  value,
  onChange,
  getKey,
  getLabel,
  renderOption,
  query,
  onQueryChange,
  placeholder,
  hint,
  emptyText,
  footer,
  loading = false,
  loadingLabel,
  disabled = false,
  toggleLabel,
  className = '',
}: MultiComboboxProps<T>) {
  return (
    <Field className={className} disabled={disabled}>
      <Label className="mb-1 block text-sm font-medium">{label}</Label>
      <Combobox
        multiple
        immediate
        value={[...value]}
        by={(a: T, b: T) => getKey(a) === getKey(b)}
        onChange={(next: T[]) => {
          onChange(next)
          onQueryChange('')
        }}
        onClose={() => onQueryChange('')}
        disabled={disabled}
      >
        <div className="relative">
          <ComboboxInput
            className={`${inputClass} pe-10 data-disabled:cursor-not-allowed data-disabled:opacity-60`}
            placeholder={placeholder}
            value={query}
            autoComplete="off"
            onChange={(e) => onQueryChange(e.target.value)}
          />
          <ComboboxButton
            aria-label={toggleLabel}
            className="absolute inset-y-0 end-0 flex items-center px-3 text-slate-500 dark:text-slate-400"
          >
            {loading ? (
              <Spinner className="size-4" label={loadingLabel} />
            ) : (
              <svg viewBox="0 0 20 20" className="size-4" aria-hidden="true" fill="currentColor">
                <path d="M5.23 7.21a.75.75 0 0 1 1.06.02L10 11.06l3.71-3.83a.75.75 0 1 1 1.08 1.04l-4.25 4.39a.75.75 0 0 1-1.08 0L5.21 8.27a.75.75 0 0 1 .02-1.06Z" />
              </svg>
            )}
          </ComboboxButton>
          <ComboboxOptions
            className="absolute z-30 mt-1 max-h-72 w-full overflow-auto rounded-md border border-slate-200 bg-white py-1 text-sm shadow-lg empty:invisible dark:border-slate-700 dark:bg-slate-900"
          >
            {options.map((item) => (
              <ComboboxOption
                key={getKey(item)}
                value={item}
                className="group flex cursor-default items-start gap-2 px-3 py-2 data-focus:bg-brand-600 data-focus:text-white"
              >
                <span className="mt-0.5 inline-block size-4 shrink-0" aria-hidden="true">
                  <svg viewBox="0 0 20 20" className="invisible size-4 group-data-selected:visible" fill="currentColor">
                    <path d="M16.7 5.3a1 1 0 0 1 0 1.4l-8 8a1 1 0 0 1-1.4 0l-4-4a1 1 0 1 1 1.4-1.4L8 12.58l7.3-7.3a1 1 0 0 1 1.4 0Z" />
                  </svg>
                </span>
                <span className="min-w-0 flex-1">{renderOption ? renderOption(item, query) : getLabel(item)}</span>
              </ComboboxOption>
            ))}
            {options.length === 0 && emptyText && !loading && (
              <div className="px-3 py-2 text-slate-600 dark:text-slate-400">{emptyText}</div>
            )}
            {footer && options.length > 0 && (
              <div className="border-t border-slate-200 px-3 py-2 text-xs text-slate-600 dark:border-slate-700 dark:text-slate-400">
                {footer}
              </div>
            )}
          </ComboboxOptions>
        </div>
      </Combobox>
      {hint && <Description className="mt-1 text-xs text-slate-600 dark:text-slate-400">{hint}</Description>}
    </Field>
  )
}

/** The part of `text` that matches `query` (case-insensitive), in a <mark>. */
export function Highlight({ text, query }: { text: string; query: string }) {
  const q = query.trim()
  if (!q) return <>{text}</>
  const i = text.toLocaleLowerCase().indexOf(q.toLocaleLowerCase())
  if (i < 0) return <>{text}</>
  return (
    <>
      {text.slice(0, i)}
      <mark className="rounded-sm bg-amber-200 px-0 text-inherit dark:bg-amber-700">{text.slice(i, i + q.length)}</mark>
      {text.slice(i + q.length)}
    </>
  )
}
