import { z } from 'zod/mini'

/** The service's ids are integers in the reference and may be strings elsewhere: kept as strings. */
export const searchIdSchema = z.pipe(z.union([z.number(), z.string()]), z.transform(String))
