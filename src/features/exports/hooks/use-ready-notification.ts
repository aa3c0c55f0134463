import { useCallback, useEffect, useRef, useState } from 'react'

const supported = () => typeof window !== 'undefined' && 'Notification' in window
const storageKey = (searchId: string) => `leads.notify.${searchId}`

/**
 * A browser notification when the export is ready. Permission is asked only when the person
 * clicks (browsers and people both dislike prompts on load); the wish survives a reload.
 */
export function useReadyNotification(searchId: string, ready: boolean, message: { title: string; body: string }) {
  const [permission, setPermission] = useState<NotificationPermission | 'unsupported'>(() =>
    supported() ? Notification.permission : 'unsupported',
  )
  const [wanted, setWanted] = useState(() => {
    try {
      return localStorage.getItem(storageKey(searchId)) === '1'
    } catch {
      return false
    }
  })
  const shown = useRef(false)

  const request = useCallback(async () => {
    if (!supported()) return
    const result = await Notification.requestPermission()
    setPermission(result)
    if (result === 'granted') {
      setWanted(true)
      try {
        localStorage.setItem(storageKey(searchId), '1')
      } catch {
        /* the wish lasts for this page only */
      }
    }
  }, [searchId])

  useEffect(() => {
    if (!ready || !wanted || permission !== 'granted' || shown.current) return
    shown.current = true
    try {
      localStorage.removeItem(storageKey(searchId))
    } catch {
      /* nothing to clean */
    }
    new Notification(message.title, { body: message.body, tag: `export-${searchId}` })
  }, [ready, wanted, permission, searchId, message.title, message.body])

  return { permission, wanted: wanted && permission === 'granted', request }
}
