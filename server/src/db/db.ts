import { createHash } from 'node:crypto'
import { readdir, readFile, mkdir } from 'node:fs/promises'
import { createRequire } from 'node:module'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { Worker } from 'node:worker_threads'
import { fillCompanyCells } from './company-cells.ts'
import type { WorkerReply, WorkerRequest } from './pglite-worker.ts'

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

/**
 * How many companies the embedded database serves well (docs/benchmarks.md, issue 24): every answer
 * is bounded by categories × places, but the seed, exports and a preview's sample rows grow with the
 * data, and every request shares its one connection. Above this the service says so at start.
 */
export const EMBEDDED_COMPANIES = 250_000

/** What route and job code sees of the database: the same on PGlite and on a PostgreSQL server. */
export interface QueryOptions {
  /** Rows as arrays of the columns in order, not objects (the export's many rows: less to build and collect). */
  rowMode?: 'array'
}

export interface Queryable {
  query<T = Record<string, unknown>>(sql: string | Prepared, params?: unknown[], options?: QueryOptions): Promise<{ rows: T[] }>
}

const textOf = (sql: string | Prepared) => (typeof sql === 'string' ? sql : sql.text)

export interface Tx extends Queryable {
  /** A script of several statements, no parameters. */
  exec(sql: string): Promise<void>
  /** `COPY table (columns) FROM STDIN (FORMAT csv…)` of the rows in `csv` (the seed's bulk load). */
  copyFrom(sql: string, csv: string): Promise<void>
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
  await fillCompanyCells(db)
  return db
}

/**
 * The embedded database runs in a worker thread (pglite-worker.ts): a query there no longer stops
 * this thread's event loop, so requests that need no database, timers and sockets go on while it runs.
 * PGlite has one connection: calls are queued here and sent one at a time, and a transaction holds
 * the queue from BEGIN to COMMIT, which makes transactions isolated from each other like SELECT …
 * FOR UPDATE would on a server.
 */
async function openPglite(dataDir: string): Promise<Db> {
  let dir: string | undefined
  if (dataDir !== 'memory://') {
    dir = path.resolve(dataDir, 'pg')
    await mkdir(dir, { recursive: true })
  }
  const worker = startWorker(dir)
  let queue: Promise<unknown> = Promise.resolve()
  const serial = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = queue.then(fn)
    queue = run.catch(() => undefined)
    return run
  }
  const query = async <T>(sql: string | Prepared, params: unknown[] = [], options: QueryOptions & { blob?: Uint8Array } = {}) => {
    const { blob, rowMode } = options
    const reply =
      typeof sql === 'string'
        ? await worker.call({ op: 'query', sql, params, ...(blob ? { blob } : {}), ...(rowMode ? { rowMode } : {}) })
        : await worker.call({ op: 'prepared', name: sql.name, text: sql.text, params })
    return { rows: (reply.rows ?? []) as T[], ...(reply.blob ? { blob: new Blob([reply.blob]) } : {}) }
  }
  const exec = async (sql: string) => {
    await worker.call({ op: 'exec', sql })
  }
  await worker.ready
  return {
    kind: 'pglite',
    query: (sql, params, options) => serial(() => query(sql, params, options)) as never,
    tx: (fn) =>
      serial(async () => {
        await worker.call({ op: 'begin' })
        let result
        try {
          result = await fn({
            query: (sql, params, options) => query(textOf(sql), params, options) as never,
            exec,
            copyFrom: async (sql, csv) => {
              await query(sql.replace(/\bSTDIN\b/, "'/dev/blob'"), [], { blob: new TextEncoder().encode(csv) })
            },
          })
        } catch (err) {
          await worker.call({ op: 'rollback' })
          throw err
        }
        await worker.call({ op: 'commit' })
        return result
      }),
    exec: (sql) => serial(() => exec(sql)),
    close: () => serial(() => worker.close()),
  }
}

type Call = DistributiveOmit<WorkerRequest, 'id'>
type DistributiveOmit<T, K extends keyof T> = T extends unknown ? Omit<T, K> : never

/**
 * The worker thread and its calls. pglite-worker.ts is TypeScript: the thread registers tsx first
 * (this process may run under tsx, or under Vitest, whose loader a worker does not inherit).
 */
function startWorker(dataDir: string | undefined) {
  // tsx's ESM entry (require.resolve finds its CommonJS twin beside it)
  const tsx = pathToFileURL(
    createRequire(import.meta.url)
      .resolve('tsx/esm/api')
      .replace(/\.cjs$/, '.mjs'),
  ).href
  const entry = new URL('./pglite-worker.ts', import.meta.url).href
  const worker = new Worker(`import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}) })`, {
    eval: true,
    workerData: { dataDir },
  })
  let nextId = 1
  let failure: Error | null = null
  const pending = new Map<
    number,
    { resolve: (reply: { rows?: unknown[]; blob?: Uint8Array }) => void; reject: (err: Error) => void; site: Error }
  >()
  // the thread keeps the process alive only while a call is waiting for it
  worker.unref()
  const settle = (id: number) => {
    const call = pending.get(id)
    pending.delete(id)
    if (pending.size === 0) worker.unref()
    return call
  }
  const failAll = (err: Error) => {
    failure ??= err
    for (const id of [...pending.keys()]) settle(id)!.reject(err)
  }
  let readyResolve: () => void
  let readyReject: (err: Error) => void
  const ready = new Promise<void>((resolve, reject) => {
    readyResolve = resolve
    readyReject = reject
  })
  pending.set(0, { resolve: () => readyResolve(), reject: (err) => readyReject(err), site: new Error() })
  worker.ref()
  worker.on('message', (reply: WorkerReply) => {
    const call = settle(reply.id)
    if (!call) return
    if ('error' in reply) {
      // the database's error with its fields (code, detail, constraint…), and the caller's stack
      const err = Object.assign(new Error(reply.error.message), reply.error)
      err.stack = `${err.name}: ${err.message}\n${call.site.stack?.split('\n').slice(1).join('\n') ?? ''}`
      call.reject(err)
    } else {
      call.resolve(reply)
    }
  })
  worker.on('error', (err) => failAll(err))
  worker.on('exit', (code) => failAll(new Error(`The embedded database's thread ended (exit code ${code}).`)))
  return {
    ready,
    call(message: Call): Promise<{ rows?: unknown[]; blob?: Uint8Array }> {
      if (failure) return Promise.reject(failure)
      const id = nextId++
      const site = new Error()
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject, site })
        worker.ref()
        const transfer = 'blob' in message && message.blob ? [message.blob.buffer as ArrayBuffer] : []
        worker.postMessage({ ...message, id }, transfer)
      })
    },
    async close() {
      if (!failure) await this.call({ op: 'close' }).catch(() => undefined)
      await worker.terminate()
    },
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
  const statement = (sql: string | Prepared, params: unknown[] | undefined, options: QueryOptions = {}) =>
    typeof sql === 'string' ? { text: sql, values: params, ...options } : { name: sql.name, text: sql.text, values: params, ...options }
  return {
    kind: 'pg',
    query: (sql, params, options) => pool.query(statement(sql, params, options)) as never,
    tx: async (fn) => {
      const client = await pool.connect()
      try {
        await client.query('BEGIN')
        const result = await fn({
          query: (sql, params, options) => client.query(statement(sql, params, options)) as never,
          exec: async (sql) => {
            await client.query(sql)
          },
          copyFrom: (sql, csv) => copyFrom(client, sql, csv),
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

/**
 * COPY … FROM STDIN on node-postgres, which has no API of its own for it: a query object that sends
 * the data when the server asks for it (the protocol's CopyInResponse), in slices of 1 MB.
 */
function copyFrom(client: { query(q: unknown): unknown }, sql: string, csv: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let failed: unknown = null
    client.query({
      submit: (connection: { query(text: string): void }) => connection.query(sql),
      handleCopyInResponse: (connection: { sendCopyFromChunk(chunk: Buffer): void; endCopyFrom(): void }) => {
        const data = Buffer.from(csv, 'utf8')
        for (let at = 0; at < data.length; at += 1 << 20) connection.sendCopyFromChunk(data.subarray(at, at + (1 << 20)))
        connection.endCopyFrom()
      },
      handleCommandComplete: () => undefined,
      handleError: (err: unknown) => {
        failed = err
      },
      handleReadyForQuery: () => (failed ? reject(failed) : resolve()),
    })
  })
}

const migrationsDir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations')

async function migrate(db: Db): Promise<void> {
  await db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())')
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
