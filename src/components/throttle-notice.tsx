import { useCallback, useEffect, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { Alert } from '@/components/ui/alert'
import { ApiError } from '@/lib/api-client'

/** When the wait is unknown (no Retry-After, no retry_after), a minute. */
const DEFAULT_WAIT_MS = 60_000

/**
 * A 429 on a form a person submits: remembers until when to wait. `take(error)` is true when the
 * error was a 429 (the form shows the notice instead of its own message); `waiting` disables submit.
 */
export function useThrottle() {
  const [until, setUntil] = useState<number | null>(null)
  const [now, setNow] = useState(() => Date.now())
  useEffect(() => {
    if (until === null) return
    const timer = setInterval(() => {
      const t = Date.now()
      setNow(t)
      if (t >= until) {
        setUntil(null)
        clearInterval(timer)
      }
    }, 1000)
    return () => clearInterval(timer)
  }, [until])
  const take = useCallback((error: unknown) => {
    if (!(error instanceof ApiError) || error.status !== 429) return false
    const t = Date.now()
    setNow(t)
    setUntil(t + (error.retryAfterMs ?? DEFAULT_WAIT_MS))
    return true
  }, [])
  const remainingMs = until === null ? 0 : Math.max(0, until - now)
  return { take, waiting: remainingMs > 0, remainingMs }
}

/**
 * "Too many attempts. You can try again in 2 minutes.", counted down in the person's language
 * (Intl.RelativeTimeFormat says "in 2 minutes", "dans 2 minutes", "בעוד 2 דקות"). Minutes while more
 * than one is left, then seconds. Screen readers hear the first sentence once; the ticking number
 * is for the eyes only, so it does not interrupt every second.
 */
export function ThrottleNotice({ remainingMs }: { remainingMs: number }) {
  // mounted only while there is a wait, so the first sentence is the wait as it began (and no
  // formatter is built on every form's first render)
  return remainingMs > 0 ? <Countdown remainingMs={remainingMs} /> : null
}

function Countdown({ remainingMs }: { remainingMs: number }) {
  const { t, i18n } = useTranslation('common')
  const [first] = useState(() => when(i18n.language, remainingMs))
  return (
    <Alert tone="error">
      <span className="sr-only">{t('throttled', { when: first })}</span>
      <span aria-hidden="true" data-testid="throttle-countdown">
        {t('throttled', { when: when(i18n.language, remainingMs) })}
      </span>
    </Alert>
  )
}

function when(language: string, ms: number): string {
  const seconds = Math.ceil(ms / 1000)
  const format = new Intl.RelativeTimeFormat(language, { numeric: 'always' })
  return seconds > 60 ? format.format(Math.ceil(seconds / 60), 'minute') : format.format(seconds, 'second')
}
