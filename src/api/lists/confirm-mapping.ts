import { useMutation, useQueryClient } from '@tanstack/react-query'
import { api } from '@/lib/api-client'
import { listSchema } from './get-lists'
import { invalidateList } from './invalidate'

/** The fields a column can be mapped to, in the service's order (capability `lists.fields`). */
export const LIST_FIELDS = ['name', 'website', 'email', 'phone', 'street', 'city', 'postal_code', 'country'] as const
export type ListField = (typeof LIST_FIELDS)[number]
export type Mapping = Partial<Record<ListField, number>>

/**
 * What the service needs to find a business (its `mapping_incomplete` rule): a name and a city, a
 * website, an email address or a phone. Checked before sending so the person is told at once.
 */
export const canMatch = (m: Mapping) =>
  (m.name !== undefined && m.city !== undefined) || m.website !== undefined || m.email !== undefined || m.phone !== undefined

/** 202: matching is queued (free); the list is polled from then on. A field left out is not in the file. */
export const confirmMapping = (listId: string, mapping: Mapping) =>
  api(`/api/lists/${encodeURIComponent(listId)}/mapping/`, { method: 'PUT', body: { mapping }, schema: listSchema })

export function useConfirmMapping(listId: string) {
  const qc = useQueryClient()
  return useMutation({
    mutationFn: (mapping: Mapping) => confirmMapping(listId, mapping),
    onSuccess: () => invalidateList(qc, listId),
  })
}
