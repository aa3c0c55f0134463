import { prepared, type Db } from '../../db/db.ts'

/**
 * Search results cached in the process, keyed by the data's generation (issue 13).
 *
 * `data_version` (migration 017) moves with every statement that changes companies, places or
 * categories, in that statement's transaction, whoever runs it (this instance, another one, a
 * person with psql). A request reads the version first, in the same round trip as something it
 * needs anyway, and takes a cached result only if it was computed at that version: the result is
 * then from data at least as new as what the request can see, on every instance, with nothing to
 * invalidate by hand. Results that depend on the clock (companies created after `now`, with a
 * test clock) are never cached: see `settled`.
 *
 * Only what is the same for every account is cached (counts, masked sample rows, facets); what
 * an account owns, its credits and its credentials are always read from the database.
 */
export interface DataVersion {
  /** bigint as text (compared as BigInt) */
  version: string
  /** Bound on the newest company's created_at; null: no companies. */
  maxCreatedAt: Date | null
}

/** SQL: the version's columns, for a query that also reads other things (`FROM … LEFT JOIN data_version dv ON true`). */
export const DATA_VERSION_COLUMNS = 'dv.version::text AS data_version, dv.max_created_at AS data_max_created_at'

export function dataVersionOf(
  row: { data_version: string | null; data_max_created_at: Date | string | null } | undefined,
): DataVersion | null {
  if (!row || row.data_version === null) return null
  return { version: row.data_version, maxCreatedAt: row.data_max_created_at === null ? null : new Date(row.data_max_created_at) }
}

const READ_VERSION = prepared(`SELECT ${DATA_VERSION_COLUMNS} FROM (VALUES (1)) one LEFT JOIN data_version dv ON true`)

export async function readDataVersion(db: Db): Promise<DataVersion | null> {
  const { rows } = await db.query<{ data_version: string | null; data_max_created_at: Date | null }>(READ_VERSION)
  return dataVersionOf(rows[0])
}

/**
 * Whether a result computed at `now` holds for every later reading of the clock at this version:
 * every company already existed at `now` (created_at <= now), so `created_at <= now` filters
 * nothing. False when the version is unknown (the row is missing).
 */
export function settled(v: DataVersion | null, now: Date): v is DataVersion {
  return v !== null && (v.maxCreatedAt === null || v.maxCreatedAt.getTime() <= now.getTime())
}

interface Entry<T> {
  value: Promise<T>
  bytes: number
}

/**
 * A bounded LRU of results of one data version. Entries of an older version are dropped as soon as
 * a newer version is seen (and results of an older version are not stored after that). Concurrent
 * requests for the same key share one computation, so 50 clients asking the same new filters cost
 * one count, not 50. Bounded in entries and in (estimated) bytes: an attacker sending endless
 * distinct filters only evicts older entries.
 */
export class VersionedCache<T> {
  private version: bigint = -1n
  private readonly entries = new Map<string, Entry<T>>()
  private bytes = 0

  constructor(
    private readonly maxEntries: number,
    private readonly maxBytes: number,
    /** Estimated size in memory of a computed value. */
    private readonly sizeOf: (value: T) => number,
  ) {}

  /** The result for `key` at `version`, computing it (once, however many ask at the same time) when missing. */
  get(at: DataVersion, key: string, compute: () => Promise<T>): Promise<T> {
    const version = BigInt(at.version)
    if (version > this.version) {
      this.entries.clear()
      this.bytes = 0
      this.version = version
    }
    if (version < this.version) return compute() // a request that read the version before it moved: no storing
    const found = this.entries.get(key)
    if (found) {
      this.entries.delete(key) // most recently used last
      this.entries.set(key, found)
      return found.value
    }
    const value = compute()
    const entry: Entry<T> = { value, bytes: 0 }
    this.entries.set(key, entry)
    value.then(
      (v) => {
        if (this.entries.get(key) !== entry) return // dropped meanwhile (newer version, eviction)
        entry.bytes = this.sizeOf(v) + key.length * 2
        this.bytes += entry.bytes
        this.evict()
      },
      () => {
        if (this.entries.get(key) === entry) this.entries.delete(key) // failures are not kept
      },
    )
    this.evict()
    return value
  }

  private evict() {
    for (const [key, entry] of this.entries) {
      if (this.entries.size <= this.maxEntries && this.bytes <= this.maxBytes) return
      this.entries.delete(key)
      this.bytes -= entry.bytes
    }
  }

  /** For tests and the bench: how much is held. */
  stats() {
    return { entries: this.entries.size, bytes: this.bytes, version: this.version }
  }
}

/** One cache per database (tests run several services in one process, each with its own). */
export function cachePerDb<T>(make: () => VersionedCache<T>): (db: Db) => VersionedCache<T> {
  const caches = new WeakMap<Db, VersionedCache<T>>()
  return (db) => {
    let cache = caches.get(db)
    if (!cache) {
      cache = make()
      caches.set(db, cache)
    }
    return cache
  }
}
