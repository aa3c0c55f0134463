import { createHash } from 'node:crypto'
import { readdir, readFile, mkdir } from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

/**
 * A statement that runs on (nearly) every request, always with the same text: prepared once per
 * connection and then only bound and executed, instead of being parsed and planned on every call
 * (on a PostgreSQL server the token check then costs it about a quarter of the CPU; on PGlite a
 * third of the time, see openPglite). Named by a hash of its text, so two texts never share a
 * name. Only for fixed texts listing their columns: each one stays prepared on every connection.
 */
export interface Prepared {
  readonly text: string
  readonly name: string
}

export const prepared = (text: string): Prepared => ({ text, name: `q${createHash('sha256').update(text).digest('hex').slice(0, 20)}` })

/** What route and job code sees of the database: the same on PGlite and on a PostgreSQL server. */
export interface Queryable {
  query<T = Record<string, unknown>>(sql: string | Prepared, params?: unknown[]): Promise<{ rows: T[] }>
}

const textOf = (sql: string | Prepared) => (typeof sql === 'string' ? sql : sql.text)

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
  const { PGlite, protocol, parse } = await import('@electric-sql/pglite')
  let dir = dataDir
  if (dir !== 'memory://') {
    dir = path.resolve(dataDir, 'pg')
    await mkdir(dir, { recursive: true })
  }
  const pg = new PGlite(dir === 'memory://' ? undefined : dir)
  await pg.waitReady
  // PGlite has one connection: transactions are serialized through this queue, which also makes
  // them isolated from each other like SELECT … FOR UPDATE would on a server. Each call starts in
  // an event-loop turn of its own (setImmediate): PGlite runs on this thread and settles its
  // promises as microtasks, so a long queue used to run back to back without the event loop taking
  // a new connection or request in between (under load, connections were accepted one per 100 ms).
  let queue: Promise<unknown> = Promise.resolve()
  const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve))
  const serial = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = queue.then(nextTurn).then(fn)
    queue = run.catch(() => undefined)
    return run
  }

  // Prepared statements: PGlite's query() sends parse, describe, bind, describe, execute and sync
  // as six calls into the database and plans the text every time. A Prepared text is parsed once
  // under its name (its parameter types kept, to turn values into text as query() does), then each
  // run is one message: bind, describe, execute, sync. Results are read by PGlite's own parser.
  const { serialize } = protocol
  const message = (parts: Uint8Array[]) => {
    const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
    let at = 0
    for (const p of parts) {
      out.set(p, at)
      at += p.length
    }
    return out
  }
  const parameterTypes = new Map<string, number[]>()
  const runPrepared = async (sql: Prepared, params: unknown[] = []) => {
    let types = parameterTypes.get(sql.name)
    if (!types) {
      try {
        const described = await pg.execProtocol(
          message([serialize.parse({ name: sql.name, text: sql.text }), serialize.describe({ type: 'S', name: sql.name }), serialize.sync()]),
        )
        types = parse.parseDescribeStatementResults(described.messages)
      } catch (err) {
        // whatever was parsed goes, so the next call prepares it afresh
        await pg.execProtocol(message([serialize.close({ type: 'S', name: sql.name }), serialize.sync()])).catch(() => undefined)
        throw err
      }
      parameterTypes.set(sql.name, types)
    }
    const values = params.map((value, i) => {
      if (value === null || value === undefined) return null
      const toText = pg.serializers[types[i]!]
      return toText ? toText(value) : String(value)
    })
    const { messages } = await pg.execProtocol(
      message([serialize.bind({ statement: sql.name, values }), serialize.describe({ type: 'P' }), serialize.execute({}), serialize.sync()]),
    )
    return parse.parseResults(messages, pg.parsers)[0]!
  }

  return {
    kind: 'pglite',
    query: (sql, params) =>
      serial(() => (typeof sql === 'string' ? pg.query(sql, params as unknown[]) : pg.runExclusive(() => runPrepared(sql, params)))) as never,
    tx: (fn) =>
      serial(() =>
        pg.transaction(async (t) =>
          fn({
            query: (sql, params) => t.query(textOf(sql), params as unknown[]) as never,
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
  const statement = (sql: string | Prepared, params: unknown[] | undefined) =>
    typeof sql === 'string' ? { text: sql, values: params } : { name: sql.name, text: sql.text, values: params }
  return {
    kind: 'pg',
    query: (sql, params) => pool.query(statement(sql, params)) as never,
    tx: async (fn) => {
      const client = await pool.connect()
      try {
        await client.query('BEGIN')
        const result = await fn({
          query: (sql, params) => client.query(statement(sql, params)) as never,
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
