// `npm run dev`: the reference service (`npm run server`) and Vite's dev server with hot reload,
// which proxies /api to it (vite.config.ts). Prints one address. Ctrl-C stops both.
//   PORT      the API's port (default 8000)
//   DEV_PORT  the dashboard's port (default 5173)
import { spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { readFileSync } from 'node:fs'
import { createServer } from 'vite'

const apiPort = process.env.PORT ?? '8000'
const devPort = Number(process.env.DEV_PORT ?? 5173)
const devUrl = `http://127.0.0.1:${devPort}/`

const serverCommand = JSON.parse(readFileSync('package.json', 'utf8')).scripts.server
const api = spawn(serverCommand, {
  shell: true,
  detached: true, // its own process group, so stopping it stops the whole tree
  stdio: ['ignore', 'pipe', 'inherit'],
  // links in mails (password reset) should open the dev server, not the API port; webhooks may call a
  // receiver on this machine (http://127.0.0.1:…), which a deployed service refuses
  env: {
    ...process.env,
    PORT: apiPort,
    PUBLIC_URL: process.env.PUBLIC_URL ?? devUrl.slice(0, -1),
    WEBHOOK_ALLOW_HTTP_LOOPBACK: process.env.WEBHOOK_ALLOW_HTTP_LOOPBACK ?? '1',
  },
})

// The API prints its own address; this script prints the one to open (the dev server) instead,
// once the API answers (its first start seeds the database, which takes about a minute).
let apiReady = false
let viteReady = false
const announce = () => {
  if (apiReady && viteReady) console.log(`\n  Dashboard with hot reload: ${devUrl}   (API on :${apiPort}, proxied at /api)\n`)
}
createInterface({ input: api.stdout }).on('line', (line) => {
  if (/^Lead dashboard and API:/.test(line)) {
    apiReady = true
    announce()
  } else console.log(line)
})

let stopping = false
function stop(code = 0) {
  if (stopping) return
  stopping = true
  try {
    process.kill(-api.pid, 'SIGTERM')
  } catch {
    /* already gone */
  }
  void vite?.close().finally(() => process.exit(code))
  if (!vite) process.exit(code)
}
api.on('exit', (code) => {
  if (!stopping) {
    console.error(`the API stopped (exit code ${code}); stopping the dev server`)
    stop(code ?? 1)
  }
})
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => stop(0))

// vite.config.ts reads the proxy target from here
process.env.VITE_DEV_API_TARGET = `http://127.0.0.1:${apiPort}`
const vite = await createServer({ server: { host: '127.0.0.1', port: devPort, strictPort: true }, clearScreen: false, logLevel: 'warn' })
await vite.listen()
viteReady = true
if (!apiReady) console.log('Starting the API (the first start creates and seeds the database)…')
announce()
