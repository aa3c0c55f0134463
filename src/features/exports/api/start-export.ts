import { useMutation, useQueryClient } from '@tanstack/react-query'
import { z } from 'zod'
import { api, ApiError } from '@/lib/api-client'
import { profileOptions } from '@/lib/api/profile'

export const startExportInput = z.object({
  search_id: z.string().min(1),
  export_format: z.enum(['csv', 'excel']),
  max_leads: z.number().int().min(1).max(2_147_483_647).optional(),
})
export type StartExportInput = z.infer<typeof startExportInput>

export const startedExportSchema = z.looseObject({
  search_id: z.union([z.number(), z.string()]).transform(String),
  status: z.string().nullish(),
  lead_count: z.number().nullish(),
  credits_charged: z.number().nullish(),
})
export type StartedExport = z.infer<typeof startedExportSchema>

export const startExport = (input: StartExportInput) => {
  const body = startExportInput.parse(input)
  // the service's ids are integers in the reference; send a number when the id is one
  const searchId = /^\d+$/.test(body.search_id) ? Number(body.search_id) : body.search_id
  return api('/api/download-csv', { method: 'POST', body: { ...body, search_id: searchId }, schema: startedExportSchema })
}

/** 403 insufficient_credits: the service's own figures, when it sent them. */
export function insufficientCredits(error: unknown): { required: number | undefined; available: number | undefined } | null {
  if (!(error instanceof ApiError) || error.validationCode !== 'insufficient_credits') return null
  const num = (v: unknown) => (typeof v === 'number' ? v : undefined)
  return { required: num(error.body.required_credits), available: num(error.body.available_credits) }
}

export function useStartExport() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: startExport,
    // credits are charged when the export starts: the shell's balance must show it now
    onSuccess: () => queryClient.invalidateQueries({ queryKey: profileOptions().queryKey }),
    // a refusal means the balance shown was stale
    onError: (error) => {
      if (insufficientCredits(error)) void queryClient.invalidateQueries({ queryKey: profileOptions().queryKey })
    },
  })
}
