import { useMutation, useQueryClient } from '@tanstack/react-query'
import { api } from '@/lib/api-client'
import { rowSchema } from './get-rows'
import { invalidateList } from './invalidate'

/** Matches a row by hand to a company (rule `manual`), or un-matches it (null). */
export const setRowMatch = (listId: string, rowNo: number, companyId: number | null) =>
  api(`/api/lists/${encodeURIComponent(listId)}/rows/${rowNo}/match/`, {
    method: 'PUT',
    body: { company_id: companyId },
    schema: rowSchema,
  })

export function useSetRowMatch(listId: string) {
  const qc = useQueryClient()
  return useMutation({
    mutationFn: ({ rowNo, companyId }: { rowNo: number; companyId: number | null }) => setRowMatch(listId, rowNo, companyId),
    onSuccess: () => invalidateList(qc, listId),
  })
}
