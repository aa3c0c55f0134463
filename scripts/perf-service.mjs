// Starts the reference service on the production build for the budget and Lighthouse checks: a
// throwaway embedded database (seeded as `npm start` seeds it), a free port, the real rate limits
// except sign-in (each check signs the demo account in a few times). Resolves once it answers.
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'

const freePort = () =>
  new Promise((resolve, reject) => {
    const s = createServer()
    s.once('error', reject)
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address()
      s.close(() => resolve(port))
    })
  })

export const DEMO = { username: 'demo@example.com', password: 'demo-password' }

/**
 * `lowPriority`: the service gets the CPU only when the browser leaves it. On a real network the
 * service is another machine; on this one its queries would otherwise be counted as the phone's
 * blocking time (a first facets query on 100,000 companies takes a core for ~0.4 s mid-load).
 */
export async function startService({ seedCompanies = process.env.PERF_SEED_COMPANIES ?? '100000', lowPriority = false } = {}) {
  const port = await freePort()
  const dataDir = mkdtempSync(path.join(tmpdir(), 'leads-perf-'))
  const command = [process.execPath, '--import', 'tsx', 'server/src/main.ts']
  // started through nice(1) so that every thread of it (the embedded database's too) has the priority
  const child = spawn(lowPriority ? 'nice' : command[0], lowPriority ? ['-n', '19', ...command] : command.slice(1), {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: {
      ...process.env,
      PORT: String(port),
      DATA_DIR: dataDir,
      SEED_COMPANIES: String(seedCompanies),
      DATABASE_URL: '',
      LOGIN_PER_MINUTE: '1000',
    },
  })
  const baseURL = `http://127.0.0.1:${port}`
  const stop = () => {
    child.kill('SIGTERM')
    rmSync(dataDir, { recursive: true, force: true })
  }
  process.on('exit', stop)
  const started = Date.now()
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the service exited with ${child.exitCode}`)
    try {
      if ((await fetch(`${baseURL}/api/plans/`)).ok) break
    } catch {
      // not listening yet
    }
    if (Date.now() - started > 300_000) throw new Error('the service did not answer within 5 minutes')
    await new Promise((r) => setTimeout(r, 500))
  }
  return { baseURL, stop }
}

/** A refresh token of the demo account (the dashboard keeps one in localStorage when signed in). */
export async function demoRefreshToken(baseURL) {
  const res = await fetch(`${baseURL}/api/auth/login/`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(DEMO),
  })
  if (!res.ok) throw new Error(`demo sign-in: ${res.status} ${await res.text()}`)
  return (await res.json()).refresh
}

export const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
export const chromiumArgs = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
]
