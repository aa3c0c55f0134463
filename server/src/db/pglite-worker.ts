import { parentPort, workerData } from 'node:worker_threads'
import { PGlite, parse, protocol, type Transaction } from '@electric-sql/pglite'
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm'

/**
 * The embedded database (PGlite) on a thread of its own (issue 24). PGlite runs PostgreSQL compiled
 * to WebAssembly synchronously on the thread that calls it: on the service's thread, a 200 ms query
 * stopped every request, timer and socket of the service for 200 ms. Here it stops only this thread;
 * db.ts sends it one call at a time (PGlite has one connection) and the service's event loop keeps
 * answering meanwhile.
 *
 * Messages: `{id, op, …}` in, `{id, rows?, blob?}` or `{id, error}` out. A transaction is `begin`, its
 * calls, then `commit` or `rollback`, run inside PGlite's own transaction() so that its rules apply
 * (a COMMIT of a failed transaction is reported as an error).
 */

export type WorkerRequest =
  | { id: number; op: 'query'; sql: string; params?: unknown[]; blob?: Uint8Array; rowMode?: 'array' }
  | { id: number; op: 'prepared'; name: string; text: string; params: unknown[] }
  | { id: number; op: 'exec'; sql: string }
  | { id: number; op: 'begin' | 'commit' | 'rollback' | 'close' }

export type WorkerReply =
  { id: number; rows?: unknown[]; blob?: Uint8Array } | { id: number; error: { message: string } & Record<string, unknown> }

const port = parentPort!
const { dataDir } = workerData as { dataDir: string | undefined }

const reply = (message: WorkerReply, transfer: ArrayBuffer[] = []) => port.postMessage(message, transfer)

/** A database error as plain data (code, detail, constraint… survive the trip; db.ts makes an Error of it again). */
function errorData(err: unknown): { message: string } & Record<string, unknown> {
  if (!(err instanceof Error)) return { message: String(err) }
  const data: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(err)) {
    if (value === undefined || typeof value === 'function') continue
    // the query's parameters may hold anything: never sent back
    if (key === 'params' || key === 'queryOptions') continue
    data[key] = value
  }
  return { ...data, name: err.name, message: err.message }
}

async function blobBytes(blob: Blob | undefined): Promise<Uint8Array | undefined> {
  return blob ? new Uint8Array(await blob.arrayBuffer()) : undefined
}

// pg_trgm: the name similarity of list matching (migration 032)
const pg = new PGlite({ dataDir, extensions: { pg_trgm } })

// Prepared statements: PGlite's query() sends parse, describe, bind, describe, execute and sync as six
// calls into the database and plans the text every time. A prepared text is parsed once under its
// name (its parameter types kept, to turn values into text as query() does), then each run is one
// message: bind, describe, execute, sync. Results are read by PGlite's own parser.
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
async function runPrepared(name: string, text: string, params: unknown[]) {
  let types = parameterTypes.get(name)
  if (!types) {
    try {
      const described = await pg.execProtocol(
        message([serialize.parse({ name, text }), serialize.describe({ type: 'S', name }), serialize.sync()]),
      )
      types = parse.parseDescribeStatementResults(described.messages)
    } catch (err) {
      // whatever was parsed goes, so the next call prepares it afresh
      await pg.execProtocol(message([serialize.close({ type: 'S', name }), serialize.sync()])).catch(() => undefined)
      throw err
    }
    parameterTypes.set(name, types)
  }
  const values = params.map((value, i) => {
    if (value === null || value === undefined) return null
    const toText = pg.serializers[types[i]!]
    return toText ? toText(value) : String(value)
  })
  const { messages } = await pg.execProtocol(
    message([serialize.bind({ statement: name, values }), serialize.describe({ type: 'P' }), serialize.execute({}), serialize.sync()]),
  )
  return parse.parseResults(messages, pg.parsers)[0]!
}

type Queryish = Pick<Transaction, 'query' | 'exec'>

async function run(on: Queryish, m: WorkerRequest): Promise<WorkerReply> {
  switch (m.op) {
    case 'query': {
      const result = await on.query(m.sql, m.params ?? [], {
        ...(m.blob ? { blob: new Blob([m.blob]) } : {}),
        ...(m.rowMode ? { rowMode: m.rowMode } : {}),
      })
      const blob = await blobBytes(result.blob)
      return { id: m.id, rows: result.rows, ...(blob ? { blob } : {}) }
    }
    case 'prepared':
      return { id: m.id, rows: (await pg.runExclusive(() => runPrepared(m.name, m.text, m.params))).rows }
    case 'exec':
      await on.exec(m.sql)
      return { id: m.id }
    default:
      throw new Error(`unexpected ${m.op}`)
  }
}

/** The calls of the open transaction, in order; null outside one. */
let inTransaction: { push(m: WorkerRequest): void } | null = null
const rolledBack = new Error('rolled back')

function begin(id: number) {
  const waiting: ((m: WorkerRequest) => void)[] = []
  const queued: WorkerRequest[] = []
  const next = () => new Promise<WorkerRequest>((resolve) => (queued.length ? resolve(queued.shift()!) : waiting.push(resolve)))
  inTransaction = { push: (m) => (waiting.length ? waiting.shift()!(m) : queued.push(m)) }
  let endedBy = id
  pg.transaction(async (tx) => {
    reply({ id })
    for (;;) {
      const m = await next()
      if (m.op === 'commit' || m.op === 'rollback') {
        endedBy = m.id
        if (m.op === 'rollback') throw rolledBack
        return
      }
      const result = await run(tx, m).catch((err: unknown) => ({ id: m.id, error: errorData(err) }) as WorkerReply)
      reply(result)
    }
  }).then(
    () => {
      inTransaction = null
      reply({ id: endedBy })
    },
    (err: unknown) => {
      inTransaction = null
      reply(err === rolledBack ? { id: endedBy } : { id: endedBy, error: errorData(err) })
    },
  )
}

// One call at a time, in the order they came (db.ts sends the next only after this one's answer,
// except inside a transaction, whose calls it also sends one by one).
let chain: Promise<unknown> = pg.waitReady.then(
  () => reply({ id: 0 }),
  (err: unknown) => reply({ id: 0, error: errorData(err) }),
)
port.on('message', (m: WorkerRequest) => {
  if (inTransaction) {
    inTransaction.push(m)
    return
  }
  chain = chain.then(async () => {
    if (m.op === 'begin') return begin(m.id)
    if (m.op === 'close') {
      await pg.close().catch(() => undefined)
      reply({ id: m.id })
      port.close()
      return
    }
    const result = await run(pg, m).catch((err: unknown) => ({ id: m.id, error: errorData(err) }) as WorkerReply)
    reply(result, result && 'blob' in result && result.blob ? [result.blob.buffer as ArrayBuffer] : [])
  })
})
