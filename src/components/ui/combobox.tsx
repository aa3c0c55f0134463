import { useCombobox } from 'downshift'
import { useDeferredValue, useId, useState, type ReactNode } from 'react'
import { useTranslation } from 'react-i18next'
import { formatNumber, listParts } from '@/lib/format'
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

const types = useCombobox.stateChangeTypes

/** Rows drawn in the render that opens the list (more than its popup shows at once); the rest follow. */
const FIRST_ROWS = 10

/**
 * Which option is active (aria-activedescendant). `auto` is the first option: as the list opens or
 * the query narrows it, Enter takes the best match. A key stays on its option while the list
 * changes around it (after a toggle the query is cleared and the toggled option stays active in the
 * full list). `none`: the list is closed or the pointer left it.
 */
type Active = { kind: 'auto' } | { kind: 'none' } | { kind: 'key'; key: string }

/**
 * Multi-select combobox on downshift's `useCombobox` (ARIA 1.2 combobox with a listbox popup: focus
 * stays in the input, the active option is announced through aria-activedescendant). Opens on focus,
 * on a click and on typing; arrows, Home/End and Page Up/Down move; Enter or a click toggles the
 * active option and keeps the list open; Escape, Tab or a click outside close it. Chosen values carry
 * a check mark and aria-selected in the list, and the empty field names them (placeholder and description). The query belongs to
 * the caller and is cleared after each toggle and on close.
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
  const hintId = useId()
  const chosenId = useId()
  const chosenText = useChosenText(value.map(getLabel))
  const [active, setActive] = useState<Active>({ kind: 'none' })
  const items = options as T[]
  const chosen = new Set(value.map(getKey))
  const keyed = active.kind === 'key' ? items.findIndex((o) => getKey(o) === active.key) : -1
  // an active option that left the list (the query changed) hands over to the first one
  const activeIndex = active.kind === 'none' ? -1 : keyed >= 0 ? keyed : items.length > 0 ? 0 : -1

  const { isOpen, highlightedIndex, getLabelProps, getMenuProps, getInputProps, getToggleButtonProps, getItemProps, openMenu } =
    useCombobox<T>({
      items,
      itemToString: (item) => (item ? getLabel(item) : ''),
      inputValue: query,
      // downshift picks one item at a time; each pick toggles it in `value` and is not kept here
      selectedItem: null,
      highlightedIndex: activeIndex,
      stateReducer: (state, { type, changes, index }) => {
        switch (type) {
          case types.ItemClick:
            return { ...changes, isOpen: true, highlightedIndex: index ?? state.highlightedIndex, inputValue: '' }
          case types.InputKeyDownEnter:
            // a toggle keeps the list open on the same option; Enter with no active option closes
            return state.highlightedIndex >= 0 && items.length > 0
              ? { ...changes, isOpen: true, highlightedIndex: state.highlightedIndex, inputValue: '' }
              : { ...changes, inputValue: '' }
          case types.InputClick:
            // the list opened on focus: a click in the input must not close it again
            return { ...changes, isOpen: true, highlightedIndex: state.isOpen ? state.highlightedIndex : changes.highlightedIndex }
          default:
            // only Enter and a click choose (leaving by Tab or a click elsewhere, or Alt+Up, just closes)
            return { ...changes, selectedItem: null, ...(changes.isOpen === false ? { inputValue: '' } : {}) }
        }
      },
      onStateChange: ({ type, ...changes }) => {
        const picked = type === types.ItemClick || type === types.InputKeyDownEnter ? changes.selectedItem : null
        if (picked) {
          const key = getKey(picked)
          onChange(chosen.has(key) ? value.filter((v) => getKey(v) !== key) : [...value, picked])
          onQueryChange('')
          setActive({ kind: 'key', key })
        } else if (changes.isOpen === false) {
          onQueryChange('')
          setActive({ kind: 'none' })
        } else if (changes.isOpen === true || type === types.InputChange) {
          // opening with Arrow Up starts at the last option; anything else at the first
          const last = type === types.InputKeyDownArrowUp ? items[items.length - 1] : undefined
          setActive(last === undefined ? { kind: 'auto' } : { kind: 'key', key: getKey(last) })
        } else if (changes.highlightedIndex !== undefined) {
          const item = items[changes.highlightedIndex]
          setActive(item === undefined ? { kind: 'none' } : { kind: 'key', key: getKey(item) })
        }
      },
    })

  // Opening draws the first rows at once and the rest in a render of their own, which a keystroke may
  // interrupt: a long list (a service's 250 countries, a page of categories) drawn in one go would hold
  // the click that opened it. The active option is always among the rows drawn.
  const listed = useDeferredValue(isOpen ? options.length : 0)
  const drawn = Math.max(listed, FIRST_ROWS, highlightedIndex + 1)

  const showEmpty = options.length === 0 && Boolean(emptyText) && !loading
  const showFooter = Boolean(footer) && options.length > 0
  // nothing to show (e.g. a type-ahead before two letters): no empty popup, and not "expanded"
  const popupShown = isOpen && (options.length > 0 || showEmpty || showFooter)
  // the popup box ("inside" for clicks, the scroll boundary) gets downshift's ref; the listbox in it
  // holds only options, with the empty text and the footer (kept in view) below it
  const { ref: menuRef, onMouseLeave, ...listboxProps } = getMenuProps()
  const inputProps = getInputProps({
    // a summary of the choice reads as the field's content, not as a faint prompt
    className: `${inputClass} pe-10 disabled:cursor-not-allowed disabled:opacity-60 ${chosenText ? 'placeholder:text-slate-900 dark:placeholder:text-slate-100' : ''}`,
    // with something chosen, the empty field shows what (the placeholder only told what to type)
    placeholder: chosenText ? chosenText.summary : placeholder,
    disabled,
    'aria-describedby': [chosenText ? chosenId : '', hint ? hintId : ''].filter(Boolean).join(' ') || undefined,
    // the query is the caller's: hand it over within the keystroke, so the caret never jumps
    onChange: (e) => onQueryChange(e.currentTarget.value),
    onFocus: () => {
      if (!isOpen && !disabled) openMenu()
    },
  })

  return (
    <div className={className}>
      <label {...getLabelProps({ className: 'mb-1 block text-sm font-medium' })}>{label}</label>
      <div className="relative">
        <input
          {...inputProps}
          role="combobox"
          aria-controls={inputProps['aria-controls']}
          aria-expanded={popupShown}
          aria-activedescendant={inputProps['aria-activedescendant'] || undefined}
        />
        <button
          type="button"
          {...getToggleButtonProps({
            'aria-label': toggleLabel,
            disabled,
            // the focus stays in the input, where the keyboard works
            onMouseDown: (e) => e.preventDefault(),
            className: 'absolute inset-y-0 end-0 flex items-center px-3 text-slate-500 disabled:cursor-not-allowed dark:text-slate-400',
          })}
          aria-expanded={popupShown}
        >
          {/* while loading, the chevron stays until the spinner (which waits half a second) takes its place */}
          <span className="grid *:col-start-1 *:row-start-1">
            <svg viewBox="0 0 20 20" className={`size-4 ${loading ? 'animate-spinner-leave' : ''}`} aria-hidden="true" fill="currentColor">
              <path d="M5.23 7.21a.75.75 0 0 1 1.06.02L10 11.06l3.71-3.83a.75.75 0 1 1 1.08 1.04l-4.25 4.39a.75.75 0 0 1-1.08 0L5.21 8.27a.75.75 0 0 1 .02-1.06Z" />
            </svg>
            {loading && <Spinner className="size-4" label={loadingLabel} />}
          </span>
        </button>
        <div
          ref={menuRef}
          onMouseLeave={onMouseLeave}
          hidden={!popupShown}
          className="absolute z-30 mt-1 flex max-h-72 w-full flex-col rounded-md border border-slate-200 bg-white py-1 text-sm shadow-lg dark:border-slate-700 dark:bg-slate-900"
        >
          {/* the listbox itself scrolls: a combobox popup, which needs no focus of its own (axe agrees). Chromium
              makes scrollers keyboard-focusable, so Tab out of the input landed on this list just as it closed
              (focus lost to <body>): tabIndex -1 keeps it out of the tab order, Tab goes to the next field */}
          <ul {...listboxProps} tabIndex={-1} role="listbox" aria-multiselectable="true" className="min-h-0 overflow-auto">
            {isOpen &&
              options.slice(0, drawn).map((item, index) => {
                const selected = chosen.has(getKey(item))
                return (
                  <li
                    key={getKey(item)}
                    {...getItemProps({ item, index })}
                    role="option"
                    // multi-select: aria-selected says chosen (downshift's says active)
                    aria-selected={selected}
                    aria-disabled={undefined}
                    data-focus={highlightedIndex === index ? '' : undefined}
                    data-selected={selected ? '' : undefined}
                    className="group flex cursor-default items-start gap-2 px-3 py-2 data-focus:bg-brand-600 data-focus:text-white"
                  >
                    <span className="mt-0.5 inline-block size-4 shrink-0" aria-hidden="true">
                      <svg viewBox="0 0 20 20" className="invisible size-4 group-data-selected:visible" fill="currentColor">
                        <path d="M16.7 5.3a1 1 0 0 1 0 1.4l-8 8a1 1 0 0 1-1.4 0l-4-4a1 1 0 1 1 1.4-1.4L8 12.58l7.3-7.3a1 1 0 0 1 1.4 0Z" />
                      </svg>
                    </span>
                    <span className="min-w-0 flex-1">{renderOption ? renderOption(item, query) : getLabel(item)}</span>
                  </li>
                )
              })}
          </ul>
          {isOpen && showEmpty && <div className="px-3 py-2 text-slate-600 dark:text-slate-400">{emptyText}</div>}
          {isOpen && showFooter && (
            <div className="shrink-0 border-t border-slate-200 px-3 py-2 text-xs text-slate-600 dark:border-slate-700 dark:text-slate-400">
              {footer}
            </div>
          )}
        </div>
      </div>
      {chosenText && (
        <span id={chosenId} className="sr-only">
          {chosenText.description}
        </span>
      )}
      {hint && (
        <p id={hintId} className="mt-1 text-xs text-slate-600 dark:text-slate-400">
          {hint}
        </p>
      )}
    </div>
  )
}

/**
 * What is chosen, in words: `summary` for the field ("Germany", "Germany and France", "Germany, France
 * +2"), `description` naming every choice for the input's accessible description. Null when nothing is.
 */
function useChosenText(labels: readonly string[]): { summary: string; description: string } | null {
  const { t, i18n } = useTranslation('common')
  if (labels.length === 0) return null
  const lng = i18n.language
  const all = listParts(lng, labels)
    .map((p) => p.value)
    .join('')
  const summary =
    labels.length <= 2 ? all : t('picker.chosenMore', { first: labels[0], second: labels[1], more: formatNumber(lng, labels.length - 2) })
  return { summary, description: t('picker.chosen', { list: all }) }
}
