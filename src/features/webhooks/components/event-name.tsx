import { useTranslation } from 'react-i18next'

const LABELS = {
  'export.completed': ['events.exportCompleted', 'events.exportCompletedHint'],
  'export.failed': ['events.exportFailed', 'events.exportFailedHint'],
  'webhook.test': ['events.test', null],
} as const

/**
 * An event in the person's language, with its name as receivers see it (`export.completed`, the value
 * of Leads-Event-Type); an event this dashboard does not know shows by that name alone.
 */
export function EventName({ type, withHint = false }: { type: string; withHint?: boolean }) {
  const { t } = useTranslation('webhooks')
  const known = Object.hasOwn(LABELS, type) ? LABELS[type as keyof typeof LABELS] : null
  const code = (
    <code dir="ltr" className="rounded bg-slate-100 px-1 font-mono text-xs text-slate-700 dark:bg-slate-800 dark:text-slate-300">
      {type}
    </code>
  )
  if (!known) return code
  const [label, hint] = known
  return (
    <span>
      <span className="font-medium">{t(label)}</span> {code}
      {withHint && hint && <span className="block text-slate-600 dark:text-slate-400">{t(hint)}</span>}
    </span>
  )
}
