import { z } from 'zod/mini'
import { api } from '@/lib/api-client'

/** Extension (issue 9): POST /api/user/password/ → a new session for this tab and the keys that still work. */
const changedSchema = z.looseObject({
  access: z.string(),
  refresh: z.string(),
  api_keys: z.array(z.looseObject({ id: z.string(), prefix: z.string() })),
})
export type PasswordChanged = z.output<typeof changedSchema>

export const changePassword = (current_password: string, new_password: string) =>
  api('/api/user/password/', { method: 'POST', body: { current_password, new_password }, schema: changedSchema })
