import http from 'node:http'
import { parentPort } from 'node:worker_threads'

/**
 * The concurrency bench's clients (server/bench/concurrency.ts), in a worker thread of their own:
 * in the service's thread their work would queue in the same event loop as the requests they time,
 * and the latency would be partly the bench's. Plain `node:http` with keep-alive sockets, one per
 * client: `fetch` costs about three times its CPU per request (WHATWG streams), which on a 2-core
 * machine is taken from the service. `jobs` run one after another or side by side (`together`).
 */
export interface LoadJob {
  /** Request i asks for urls[i % urls.length]. */
  urls: string[]
  headers: Record<string, string>
  clients: number
  requests: number
  maxSeconds: number
  /** A client starts a request at most every intervalMs (a probe); absent: back to back. */
  intervalMs?: number
}

export interface LoadResult {
  /** Each finished request's latency in ms. */
  times: number[]
  errors: number
  /** Status codes other than 200, one of each with its body's start (to say what went wrong). */
  failures: string[]
  seconds: number
}

function run(job: LoadJob): Promise<LoadResult> {
  const targets = job.urls.map((u) => new URL(u))
  const agent = new http.Agent({ keepAlive: true, maxSockets: job.clients })
  const times: number[] = []
  const failures = new Map<number, string>()
  let errors = 0
  let issued = 0
  const deadline = Date.now() + job.maxSeconds * 1000
  const once = (target: URL) =>
    new Promise<void>((resolve) => {
      const t0 = performance.now()
      const req = http.get(
        { host: target.hostname, port: target.port, path: target.pathname + target.search, agent, headers: job.headers },
        (res) => {
          const chunks: Buffer[] = []
          res.on('data', (d: Buffer) => chunks.push(d))
          res.on('end', () => {
            times.push(performance.now() - t0)
            if (res.statusCode !== 200) {
              errors++
              if (!failures.has(res.statusCode!)) failures.set(res.statusCode!, Buffer.concat(chunks).toString('latin1').slice(0, 200))
            }
            resolve()
          })
          res.on('error', () => {
            errors++
            resolve()
          })
        },
      )
      req.on('error', (err) => {
        errors++
        if (!failures.has(0)) failures.set(0, err.message)
        resolve()
      })
    })
  const started = performance.now()
  return Promise.all(
    Array.from({ length: job.clients }, async () => {
      while (issued < job.requests && Date.now() < deadline) {
        const next = performance.now() + (job.intervalMs ?? 0)
        await once(targets[issued++ % targets.length]!)
        const wait = next - performance.now()
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait))
      }
    }),
  ).then(() => {
    agent.destroy()
    return {
      times,
      errors,
      failures: [...failures].map(([status, body]) => `${status}: ${body}`),
      seconds: (performance.now() - started) / 1000,
    }
  })
}

parentPort!.on('message', async (message: { jobs: LoadJob[]; together: boolean }) => {
  const results = message.together ? await Promise.all(message.jobs.map(run)) : []
  if (!message.together) for (const job of message.jobs) results.push(await run(job))
  parentPort!.postMessage(results)
})
