import { useMutation, useQueryClient } from '@tanstack/react-query'
import { z } from 'zod/mini'
import { api } from '@/lib/api-client'
import { exportStatusOptions } from './get-export-status'
import { searchIdSchema } from './schemas'

export const retriedExportSchema = z.looseObject({
  search_id: searchIdSchema,
  status: z.nullish(z.string()),
})

export const retryExport = (searchId: string) =>
  api(`/api/user/search-history/${encodeURIComponent(searchId)}/retry`, { method: 'POST', schema: retriedExportSchema })

/** A failed export runs again at no new charge (decisions.md). */
export function useRetryExport(searchId: string) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: () => retryExport(searchId),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: exportStatusOptions(searchId).queryKey }),
  })
}
