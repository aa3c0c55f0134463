import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'

/**
 * Several real service processes (`server/src/main.ts`) on one PostgreSQL database of their own,
 * as several instances behind a proxy run them: the same DATABASE_URL, SECRET_KEY and DATA_DIR,
 * each with its own memory (caches, rate-limit windows, export workers). Only with DATABASE_URL:
 * the embedded database is single-process.
 */
export interface Instance {
  child: ChildProcess
  ready: Promise<{ url: string; id: string }>
  output(): string
}

const root = path.resolve(import.meta.dirname, '../..')

export async function sharedDatabase(prefix: string) {
  const { default: pg } = await import('pg')
  const name = `${prefix}_${randomBytes(6).toString('hex')}`
  const admin = new pg.Client({ connectionString: process.env.DATABASE_URL })
  await admin.connect()
  await admin.query(`CREATE DATABASE ${name}`)
  await admin.end()
  const url = new URL(process.env.DATABASE_URL!)
  url.pathname = `/${name}`
  const dataDir = await mkdtemp(path.join(tmpdir(), `${prefix}-`)) // shared: any instance serves any file
  const children: ChildProcess[] = []

  function instance(env: Record<string, string> = {}): Instance {
    const child = spawn(process.execPath, ['--import', 'tsx', 'server/src/main.ts'], {
      cwd: root,
      env: {
        ...process.env,
        DATABASE_URL: url.toString(),
        DATA_DIR: dataDir,
        SECRET_KEY: `shared-secret-of-${name}`,
        PORT: '0',
        LEADS_TEST_CLOCK: '1',
        SEED_COMPANIES: '3000',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    children.push(child)
    let out = ''
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()))
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()))
    const ready = new Promise<{ url: string; id: string }>((resolve, reject) => {
      const timer = setInterval(() => {
        const url = /Lead dashboard and API: (http:\/\/\S+?)\/\s/.exec(out)?.[1]
        const id = /\[export worker\] instance (\w+)/.exec(out)?.[1]
        if (url && id) {
          clearInterval(timer)
          resolve({ url, id })
        }
      }, 50)
      child.once('exit', (code) => {
        clearInterval(timer)
        reject(new Error(`instance exited (${code}):\n${out}`))
      })
    })
    ready.catch(() => undefined)
    return { child, ready, output: () => out }
  }

  return {
    url: url.toString(),
    instance,
    async close() {
      for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL')
      const admin = new pg.Client({ connectionString: process.env.DATABASE_URL })
      await admin.connect()
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      await admin.end()
      await rm(dataDir, { recursive: true, force: true })
    },
  }
}
