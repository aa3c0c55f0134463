import { useMutation, useQueryClient } from '@tanstack/react-query'
import { z } from 'zod/mini'
import { api, ApiError } from '@/lib/api-client'
import { profileOptions } from '@/lib/api/profile'
import { exportKeys } from '../export-keys'
import { searchIdSchema } from './schemas'

export const startExportInput = z.object({
  search_id: z.string().check(z.minLength(1)),
  export_format: z.enum(['csv', 'excel']),
  max_leads: z.optional(z.int().check(z.gte(1), z.lte(2_147_483_647))),
  // extensions of the reference service (sent only when it lists them at /api/capabilities/)
  skip_owned: z.optional(z.boolean()),
  columns: z.optional(z.array(z.string()).check(z.minLength(1))),
  file_locale: z.optional(z.string()),
})
export type StartExportInput = z.infer<typeof startExportInput>

export const startedExportSchema = z.looseObject({
  search_id: searchIdSchema,
  status: z.nullish(z.string()),
  lead_count: z.nullish(z.number()),
  credits_charged: z.nullish(z.number()),
  skipped_owned: z.nullish(z.number()),
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
    // credits are charged when the export starts: the shell's balance must show it now, and the leads
    // it holds are the account's from now on
    onSuccess: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: profileOptions().queryKey }),
        queryClient.invalidateQueries({ queryKey: [...exportKeys.all, 'owned'] }),
      ]),
    // a refusal means the balance shown was stale
    onError: (error) => {
      if (insufficientCredits(error)) void queryClient.invalidateQueries({ queryKey: profileOptions().queryKey })
    },
  })
}
