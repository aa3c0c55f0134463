import { useId, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { LANGUAGES, isLanguage, type Language } from '@/config/languages'
import { changeLanguage } from '@/lib/i18n'
import { useSession } from '@/lib/session'

/** Each language named in itself ("Deutsch", "עברית", "ไทย"), as people look for their own. */
function ownName(code: Language): string {
  const name = new Intl.DisplayNames([code], { type: 'language' }).of(code) ?? code
  return name.charAt(0).toLocaleUpperCase(code) + name.slice(1)
}
const OPTIONS = LANGUAGES.map((code) => ({ code, name: ownName(code) })).sort((a, b) => a.name.localeCompare(b.name, 'en'))

/** A native select: right on every device and screen reader, and no weight on the first load. */
export function LanguageSwitcher({ className = '' }: { className?: string }) {
  const { t, i18n } = useTranslation('common')
  const { signedIn } = useSession()
  const [saveFailed, setSaveFailed] = useState(false)
  const id = useId()
  const current = isLanguage(i18n.resolvedLanguage) ? i18n.resolvedLanguage : 'en'

  async function choose(lng: Language) {
    setSaveFailed(false)
    await changeLanguage(lng)
    if (!signedIn) return
    try {
      // loaded on demand: the signed-out pages carrying this switcher stay free of the profile schema
      const [{ profileOptions, updateProfile }, { queryClient }] = await Promise.all([import('@/lib/api/profile'), import('@/lib/query-client')])
      queryClient.setQueryData(profileOptions().queryKey, await updateProfile({ preferred_language: lng }))
    } catch {
      setSaveFailed(true)
    }
  }

  return (
    <div className={className}>
      <label htmlFor={id} className="sr-only">
        {t('language.label')}
      </label>
      <select
        id={id}
        value={current}
        onChange={(e) => {
          if (isLanguage(e.target.value)) void choose(e.target.value)
        }}
        className="block w-full min-h-10 rounded-md border border-slate-300 bg-white ps-2 pe-8 py-1.5 text-sm text-slate-900 dark:border-slate-600 dark:bg-slate-900 dark:text-slate-100"
      >
        {OPTIONS.map((o) => (
          <option key={o.code} value={o.code} lang={o.code}>
            {o.name}
          </option>
        ))}
      </select>
      {saveFailed && (
        <p role="alert" className="mt-1 text-xs text-red-700 dark:text-red-400">
          {t('language.saveFailed')}
        </p>
      )}
    </div>
  )
}
