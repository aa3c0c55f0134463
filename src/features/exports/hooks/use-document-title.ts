import { useEffect } from 'react'

/** Sets the tab title while mounted (progress shows in the tab), restoring the previous one after. */
export function useDocumentTitle(title: string) {
  useEffect(() => {
    const previous = document.title
    document.title = title
    return () => {
      document.title = previous
    }
  }, [title])
}
