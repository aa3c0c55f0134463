import { useQuery } from '@tanstack/react-query'
import { useMemo } from 'react'
import { previewOptions } from '../api/get-preview'
import { previewQuery, type PreviewQuery, type SearchFilters } from '../filters'
import { useDebouncedValue } from './use-debounced-value'

export const PREVIEW_DEBOUNCE_MS = 300

/**
 * The live count: at most one request per 300 ms of changes; the last number stays while the next
 * loads. Nothing is asked while `enabled` is false (a link still being resolved).
 */
export function usePreview(filters: SearchFilters, enabled = true) {
  const key = JSON.stringify(previewQuery(filters))
  // while disabled nothing settles: once enabled, the first request waits for the whole search
  const debouncedKey = useDebouncedValue(enabled ? key : null, PREVIEW_DEBOUNCE_MS)
  const query = useMemo(() => JSON.parse(debouncedKey ?? key) as PreviewQuery, [debouncedKey, key])
  const result = useQuery({ ...previewOptions(query), enabled: enabled && debouncedKey !== null })
  return { query: result, settling: key !== debouncedKey }
}
