import { useSyncExternalStore } from 'react'

const QUERY = '(prefers-color-scheme: dark)'

/** Dark mode follows the system (src/index.css): the basemap's theme follows it too, live. */
export function useDarkMode(): boolean {
  return useSyncExternalStore(
    (onChange) => {
      const media = matchMedia(QUERY)
      media.addEventListener('change', onChange)
      return () => media.removeEventListener('change', onChange)
    },
    () => matchMedia(QUERY).matches,
    () => false,
  )
}
