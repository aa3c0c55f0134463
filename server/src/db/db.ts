import { readdir, readFile, mkdir } from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

/** What route and job code sees of the database: the same on PGlite and on a PostgreSQL server. */
export interface Queryable {
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<{ rows: T[] }>
}

export interface Tx extends Queryable {
  /** A script of several statements, no parameters. */
  exec(sql: string): Promise<void>
}

export interface Db extends Queryable {
  readonly kind: 'pglite' | 'pg'
  /** Runs fn in one transaction; rolls back if it throws. */
  tx<T>(fn: (q: Tx) => Promise<T>): Promise<T>
  /** Runs a script of several statements (migrations). */
  exec(sql: string): Promise<void>
  close(): Promise<void>
}

export interface DbOptions {
  /** postgres://… ; when absent the embedded PGlite in dataDir is used. */
  databaseUrl?: string
  /** PostgreSQL connections this process may hold (DATABASE_POOL_SIZE). */
  poolSize?: number
  /** Directory of the embedded database; 'memory://' for a throwaway one (tests). */
  dataDir?: string
}

export async function openDb(opts: DbOptions): Promise<Db> {
  const db = opts.databaseUrl ? await openPg(opts.databaseUrl, opts.poolSize ?? 10) : await openPglite(opts.dataDir ?? '.data')
  await migrate(db)
  return db
}

async function openPglite(dataDir: string): Promise<Db> {
  const { PGlite } = await import('@electric-sql/pglite')
  let dir = dataDir
  if (dir !== 'memory://') {
    dir = path.resolve(dataDir, 'pg')
    await mkdir(dir, { recursive: true })
  }
  const pg = new PGlite(dir === 'memory://' ? undefined : dir)
  await pg.waitReady
  // PGlite has one connection: transactions are serialized through this queue, which also makes
  // them isolated from each other like SELECT … FOR UPDATE would on a server.
  let queue: Promise<unknown> = Promise.resolve()
  const serial = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = queue.then(fn, fn)
    queue = run.catch(() => undefined)
    return run
  }
  return {
    kind: 'pglite',
    query: (sql, params) => serial(() => pg.query(sql, params as unknown[])) as never,
    tx: (fn) =>
      serial(() =>
        pg.transaction(async (t) =>
          fn({
            query: (sql, params) => t.query(sql, params as unknown[]) as never,
            exec: async (sql) => {
              await t.exec(sql)
            },
          }),
        ),
      ),
    exec: async (sql) => {
      await serial(() => pg.exec(sql))
    },
    close: () => pg.close(),
  }
}

async function openPg(url: string, poolSize: number): Promise<Db> {
  const { default: pg } = await import('pg')
  // int8 (count(*), bigint) as JS numbers: every count here fits easily.
  pg.types.setTypeParser(20, (v) => Number(v))
  pg.types.setTypeParser(1700, (v) => v) // numeric stays a string, as PGlite gives it
  const pool = new pg.Pool({ connectionString: url, max: poolSize })
  // An idle client's error (server restart, DROP DATABASE … WITH (FORCE) in tests) must not crash the
  // process: without a listener, node-postgres rethrows it as an unhandled 'error' event.
  pool.on('error', (err) => console.error('[db] idle connection error:', err.message))
  return {
    kind: 'pg',
    query: (sql, params) => pool.query(sql, params as unknown[]) as never,
    tx: async (fn) => {
      const client = await pool.connect()
      try {
        await client.query('BEGIN')
        const result = await fn({
          query: (sql, params) => client.query(sql, params as unknown[]) as never,
          exec: async (sql) => {
            await client.query(sql)
          },
        })
        await client.query('COMMIT')
        return result
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined)
        throw err
      } finally {
        client.release()
      }
    },
    exec: async (sql) => {
      await pool.query(sql)
    },
    close: () => pool.end(),
  }
}

const migrationsDir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations')

async function migrate(db: Db): Promise<void> {
  await db.exec(
    'CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
  )
  const done = new Set((await db.query<{ name: string }>('SELECT name FROM schema_migrations')).rows.map((r) => r.name))
  const files = (await readdir(migrationsDir)).filter((f) => f.endsWith('.sql')).sort()
  for (const file of files) {
    if (done.has(file)) continue
    const sql = await readFile(path.join(migrationsDir, file), 'utf8')
    await db.tx(async (q) => {
      await q.exec(sql)
      await q.query('INSERT INTO schema_migrations (name) VALUES ($1)', [file])
    })
  }
}
