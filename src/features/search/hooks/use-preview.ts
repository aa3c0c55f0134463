import { useQuery } from '@tanstack/react-query'
import { useMemo } from 'react'
import { useTranslation } from 'react-i18next'
import { previewOptions } from '@/api/search/get-preview'
import { previewQuery, type PreviewQuery, type SearchFilters } from '@/domain/search-filters'
import { useDebouncedValue } from '@/lib/use-debounced-value'

export const PREVIEW_DEBOUNCE_MS = 300

/**
 * The live count: at most one request per 300 ms of changes; the last number stays while the next
 * loads. Nothing is asked while `enabled` is false (a link still being resolved). The language is part
 * of the request (the sample's category names): changing it asks once more, with the count kept meanwhile.
 */
export function usePreview(filters: SearchFilters, enabled = true) {
  const { i18n } = useTranslation('search')
  const key = JSON.stringify(previewQuery(filters))
  // while disabled nothing settles: once enabled, the first request waits for the whole search
  const debouncedKey = useDebouncedValue(enabled ? key : null, PREVIEW_DEBOUNCE_MS)
  const query = useMemo(() => JSON.parse(debouncedKey ?? key) as PreviewQuery, [debouncedKey, key])
  const result = useQuery({ ...previewOptions(query, i18n.language), enabled: enabled && debouncedKey !== null })
  return { query: result, settling: key !== debouncedKey }
}
