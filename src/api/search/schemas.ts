import { z } from 'zod/mini'

/*
 * Builders rather than schemas: each is built inside a schema that is itself built on its first use
 * (lazySchema, src/lib/api-client.ts), not while the search page's modules are evaluated.
 */

/** Ids arrive as numbers or strings (level3 ids are strings); the dashboard keeps them as strings. */
export const idSchema = () => z.pipe(z.union([z.number(), z.string()]), z.transform(String))
export const optionalId = () => z.pipe(z.nullish(idSchema()), z.transform((v) => v ?? undefined))
export const optionalName = () => z.pipe(z.nullish(z.string()), z.transform((v) => v ?? undefined))
/** Text fields that may be missing, null or a number: always a string for the UI. */
export const text = () =>
  z.pipe(z.nullish(z.union([z.string(), z.number()])), z.transform((v) => (v === null || v === undefined ? '' : String(v))))
/** A list that may be missing or null: always an array. */
export const list = <T extends z.ZodMiniType>(item: T) =>
  z.pipe(z.nullish(z.array(item)), z.transform((v) => (v ?? []) as z.output<T>[]))
