import { z } from 'zod'

/** Ids arrive as numbers or strings (level3 ids are strings); the dashboard keeps them as strings. */
export const idSchema = z.union([z.number(), z.string()]).transform(String)
export const optionalId = idSchema.nullish().transform((v) => v ?? undefined)
export const optionalName = z.string().nullish().transform((v) => v ?? undefined)
