import { useQuery } from '@tanstack/react-query'
import { useMemo } from 'react'
import { previewOptions } from '../api/get-preview'
import { previewQuery, type PreviewQuery, type SearchFilters } from '../filters'
import { useDebouncedValue } from './use-debounced-value'

export const PREVIEW_DEBOUNCE_MS = 300

/** The live count: at most one request per 300 ms of changes; the last number stays while the next loads. */
export function usePreview(filters: SearchFilters) {
  const key = JSON.stringify(previewQuery(filters))
  const debouncedKey = useDebouncedValue(key, PREVIEW_DEBOUNCE_MS)
  const query = useMemo(() => JSON.parse(debouncedKey) as PreviewQuery, [debouncedKey])
  const result = useQuery(previewOptions(query))
  return { query: result, settling: key !== debouncedKey }
}
