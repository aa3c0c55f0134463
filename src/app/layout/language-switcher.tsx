import { useEffect, useId, useRef, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { isLanguage, type Language } from '@/config/languages'
import { languagesByOwnName } from '@/lib/format'
import { changeLanguage, rememberLanguage } from '@/lib/i18n'
import { useSession } from '@/lib/session'

/** Each language named in itself ("Deutsch", "עברית", "ไทย"), as people look for their own. */

function GlobeIcon() {
  return (
    <svg viewBox="0 0 24 24" className="size-5 shrink-0" fill="none" stroke="currentColor" strokeWidth="1.75" aria-hidden="true">
      <circle cx="12" cy="12" r="9" />
      <path d="M3 12h18M12 3c2.5 2.6 3.8 5.6 3.8 9s-1.3 6.4-3.8 9c-2.5-2.6-3.8-5.6-3.8-9S9.5 5.6 12 3z" />
    </svg>
  )
}

/** The profile's language, saved with keepalive (api/account/profile.ts): leaving the page does not cut it off. */
async function saveToProfile(lng: Language): Promise<boolean> {
  try {
    // loaded on demand: the signed-out pages carrying this switcher stay free of the profile schema
    const [{ profileOptions, updateProfile }, { queryClient }] = await Promise.all([
      import('@/api/account/profile'),
      import('@/lib/query-client'),
    ])
    queryClient.setQueryData(profileOptions().queryKey, await updateProfile({ preferred_language: lng }))
    return true
  } catch {
    return false
  }
}

const itemClass =
  'block w-full rounded px-3 py-2 text-start text-sm text-slate-800 hover:bg-slate-100 focus-visible:bg-slate-100 focus-visible:outline-2 focus-visible:-outline-offset-2 focus-visible:outline-brand-600 aria-[current=true]:font-semibold aria-[current=true]:text-brand-700 dark:text-slate-100 dark:hover:bg-slate-800 dark:focus-visible:bg-slate-800 dark:aria-[current=true]:text-brand-100'

/**
 * The language as a disclosure: a button naming the current language opens a list of the 27
 * languages, each a button named in its own language. The language changes (and the profile is saved)
 * only when one is chosen — never while merely moving through the list (WCAG 3.2.2), which a native
 * select does on arrow keys in Chromium. Escape closes and returns the focus to the button; a click
 * outside or the focus leaving closes it. `inline` shows the list in the flow (the mobile drawer),
 * otherwise it drops down under the button's end edge.
 */
export function LanguageSwitcher({ className = '', inline = false }: { className?: string; inline?: boolean }) {
  const { t, i18n } = useTranslation('common')
  const { signedIn } = useSession()
  const [open, setOpen] = useState(false)
  const [saveFailed, setSaveFailed] = useState(false)
  const listId = useId()
  const labelId = useId()
  const currentId = useId()
  const rootRef = useRef<HTMLDivElement>(null)
  const buttonRef = useRef<HTMLButtonElement>(null)
  const current = isLanguage(i18n.resolvedLanguage) ? i18n.resolvedLanguage : 'en'
  const currentName = languagesByOwnName().find((o) => o.code === current)?.name ?? current

  useEffect(() => {
    if (!open) return
    const closeOutside = (e: PointerEvent) => {
      if (e.target instanceof Node && !rootRef.current?.contains(e.target)) setOpen(false)
    }
    const closeOnEscape = (e: KeyboardEvent) => {
      if (e.key !== 'Escape') return
      // handled here: an enclosing drawer must not close on the same key
      e.stopPropagation()
      setOpen(false)
      buttonRef.current?.focus()
    }
    const root = rootRef.current
    document.addEventListener('pointerdown', closeOutside)
    root?.addEventListener('keydown', closeOnEscape)
    return () => {
      document.removeEventListener('pointerdown', closeOutside)
      root?.removeEventListener('keydown', closeOnEscape)
    }
  }, [open])

  async function choose(lng: Language) {
    setOpen(false)
    buttonRef.current?.focus()
    if (lng === current) return
    setSaveFailed(false)
    // A page reloaded at once comes back in the chosen language (issue 21): the choice is kept in this
    // browser and sent to the profile before anything is awaited (the language's strings may take a while)
    rememberLanguage(lng)
    const saving = signedIn ? saveToProfile(lng) : null
    await changeLanguage(lng)
    if (saving && !(await saving)) setSaveFailed(true)
  }

  return (
    <div
      ref={rootRef}
      className={`relative ${className}`}
      onBlur={(e) => {
        if (e.relatedTarget instanceof Node && !e.currentTarget.contains(e.relatedTarget)) setOpen(false)
      }}
    >
      <button
        ref={buttonRef}
        type="button"
        aria-expanded={open}
        aria-controls={listId}
        // "Language English": the visible name, after what it is for (joined with a space)
        aria-labelledby={`${labelId} ${currentId}`}
        onClick={() => setOpen((o) => !o)}
        className="flex min-h-10 w-full items-center gap-2 rounded-md border border-slate-300 bg-white px-2 py-1.5 text-sm text-slate-900 hover:bg-slate-50 dark:border-slate-600 dark:bg-slate-900 dark:text-slate-100 dark:hover:bg-slate-800"
      >
        <GlobeIcon />
        <span id={labelId} className="sr-only">
          {t('language.label')}
        </span>{' '}
        {/* the space keeps the text "Language English", as the name reads (not "LanguageEnglish") */}
        <span id={currentId} lang={current} className="min-w-0 flex-1 truncate text-start">
          {currentName}
        </span>
        <svg
          viewBox="0 0 20 20"
          className={`size-4 shrink-0 transition-transform ${open ? 'rotate-180' : ''}`}
          fill="currentColor"
          aria-hidden="true"
        >
          <path d="M5.3 7.3a1 1 0 0 1 1.4 0L10 10.6l3.3-3.3a1 1 0 1 1 1.4 1.4l-4 4a1 1 0 0 1-1.4 0l-4-4a1 1 0 0 1 0-1.4z" />
        </svg>
      </button>
      <ul
        id={listId}
        hidden={!open}
        aria-label={t('language.label')}
        className={
          inline
            ? 'mt-2 grid grid-cols-2 gap-0.5 rounded-md border border-slate-200 bg-white p-1 dark:border-slate-700 dark:bg-slate-900'
            : 'absolute end-0 top-full z-50 mt-2 grid max-h-[70dvh] w-[min(26rem,calc(100vw-1.5rem))] grid-cols-2 gap-0.5 overflow-y-auto rounded-md border border-slate-200 bg-white p-1 shadow-lg dark:border-slate-700 dark:bg-slate-900'
        }
      >
        {languagesByOwnName().map((o) => (
          <li key={o.code}>
            <button
              type="button"
              lang={o.code}
              aria-current={o.code === current ? 'true' : undefined}
              className={itemClass}
              onClick={() => void choose(o.code)}
            >
              {o.name}
            </button>
          </li>
        ))}
      </ul>
      {saveFailed && (
        <p role="alert" className="mt-1 text-xs text-red-700 dark:text-red-400">
          {t('language.saveFailed')}
        </p>
      )}
    </div>
  )
}
