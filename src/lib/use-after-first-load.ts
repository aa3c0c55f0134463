import { useQueryClient } from '@tanstack/react-query'
import { useEffect, useState } from 'react'

/**
 * True once the page's own first load is over: the document has loaded, at least 1.5 s have passed,
 * no query has been fetching for a second, and the browser is idle. (The page's code arrives after
 * the document's `load`, so `load` alone says nothing about the page's requests.)
 */
export function useAfterFirstLoad(): boolean {
  const queryClient = useQueryClient()
  const [settled, setSettled] = useState(false)
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined
    let idle: number | undefined
    let quietChecks = 0
    const check = () => {
      quietChecks = queryClient.isFetching() === 0 ? quietChecks + 1 : 0
      if (quietChecks < 3) {
        timer = setTimeout(check, 500)
        return
      }
      if (typeof requestIdleCallback === 'function') idle = requestIdleCallback(() => setSettled(true), { timeout: 2000 })
      else setSettled(true)
    }
    const later = () => {
      timer = setTimeout(check, 500)
    }
    if (document.readyState === 'complete') later()
    else window.addEventListener('load', later, { once: true })
    return () => {
      window.removeEventListener('load', later)
      clearTimeout(timer)
      if (idle !== undefined) cancelIdleCallback(idle)
    }
  }, [queryClient])
  return settled
}
