import { z } from 'zod'

const envSchema = z.object({
  /** Base address of the lead-data service; empty means the dashboard's own origin (npm start). */
  VITE_API_BASE_URL: z
    .string()
    .optional()
    .transform((v) => (v ?? '').replace(/\/+$/, '')),
})

export const env = envSchema.parse(import.meta.env)
