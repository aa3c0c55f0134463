import { z } from 'zod/mini'

/*
 * Schema pieces for answers, tolerant exactly where the interface is silent (decisions.md,
 * "Tolerate"). Builders rather than schemas: each is built inside a schema that is itself built on
 * its first use (lazySchema, lib/api-client.ts), not while a page's modules are evaluated.
 */

/** Ids (search_id, key and place ids) arrive as numbers or strings, numeric or not: opaque strings. */
export const opaqueId = () => z.pipe(z.union([z.number(), z.string().check(z.minLength(1))]), z.transform(String))

/** An id that may be missing (the answer is "not shown"): undefined then, never a failure. */
export const optionalOpaqueId = () => z.catch(z.optional(opaqueId()), undefined)

/**
 * A number that may arrive as a string (a decimal as Django REST Framework writes it, "4.50") or be
 * missing: undefined when it is missing or not a number, never a failure of the whole answer.
 */
export const looseNumber = () =>
  z.catch(
    z.pipe(
      z.nullish(z.union([z.number(), z.string()])),
      z.transform((v) => {
        if (v === null || v === undefined || v === '') return undefined
        const n = typeof v === 'number' ? v : Number(v.trim())
        return Number.isFinite(n) ? n : undefined
      }),
    ),
    undefined,
  )

/** Text that may be missing, null or not a string: undefined unless it is a string. */
export const looseText = () =>
  z.catch(
    z.pipe(
      z.nullish(z.string()),
      z.transform((v) => v ?? undefined),
    ),
    undefined,
  )

/** A date-time that may be missing or unreadable: undefined then (an Invalid Date would throw in render). */
export const looseDateTime = () =>
  z.catch(
    z.pipe(
      z.nullish(z.string()),
      z.transform((v) => (v && !Number.isNaN(Date.parse(v)) ? v : undefined)),
    ),
    undefined,
  )

/** A list answered bare (`[...]`) or paginated (`{count, next, previous, results: [...]}`). */
export const listOf = <T extends z.ZodMiniType>(item: T) =>
  z.pipe(
    z.union([z.array(item), z.looseObject({ results: z.array(item) })]),
    z.transform((v) => (Array.isArray(v) ? v : v.results) as z.output<T>[]),
  )

/**
 * A list of names that may come as strings, numbers, objects with a `name`, or one comma-separated
 * string (the lead record's fields are "not shown" in the interface): always strings, never a failure.
 */
export const looseNameList = () =>
  z.catch(
    z.pipe(
      z.unknown(),
      z.transform((v): string[] => {
        const items = Array.isArray(v) ? v : typeof v === 'string' ? v.split(',') : []
        return items
          .map((item) =>
            typeof item === 'string' || typeof item === 'number'
              ? String(item).trim()
              : item && typeof item === 'object' && typeof (item as { name?: unknown }).name === 'string'
                ? (item as { name: string }).name
                : '',
          )
          .filter(Boolean)
      }),
    ),
    [],
  )

/** Ids of look-ups (level3 ids are strings), kept as strings; an empty one passes (opaqueId refuses it). */
export const idSchema = () => z.pipe(z.union([z.number(), z.string()]), z.transform(String))
export const optionalId = () =>
  z.pipe(
    z.nullish(idSchema()),
    z.transform((v) => v ?? undefined),
  )
export const optionalName = () =>
  z.pipe(
    z.nullish(z.string()),
    z.transform((v) => v ?? undefined),
  )
/** Text fields that may be missing, null or a number: always a string for the UI. */
export const text = () =>
  z.pipe(
    z.nullish(z.union([z.string(), z.number()])),
    z.transform((v) => (v === null || v === undefined ? '' : String(v))),
  )
/** A list that may be missing or null: always an array. */
export const list = <T extends z.ZodMiniType>(item: T) =>
  z.pipe(
    z.nullish(z.array(item)),
    z.transform((v) => (v ?? []) as z.output<T>[]),
  )
/** A field that may be missing or null: `fallback` then, whatever else it holds checked by `schema`. */
export const withDefault = <T extends z.ZodMiniType>(schema: T, fallback: z.output<T>) =>
  z.pipe(
    z.optional(z.nullable(schema)),
    z.transform((v) => (v ?? fallback) as z.output<T>),
  )
