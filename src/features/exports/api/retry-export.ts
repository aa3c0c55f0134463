import { useMutation, useQueryClient } from '@tanstack/react-query'
import { z } from 'zod'
import { api } from '@/lib/api-client'
import { exportStatusOptions } from './get-export-status'

export const retriedExportSchema = z.looseObject({
  search_id: z.union([z.number(), z.string()]).transform(String),
  status: z.string().nullish(),
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
