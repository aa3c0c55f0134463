// The map's panning (issue 26: "panning at 60 fps with 5,000 cells on a mid laptop profile"): the search
// page's map in Chromium with 5,000 cells in view, dragged with the mouse back and forth for a few seconds
// while the page records every frame (requestAnimationFrame deltas), without CPU throttling and at 2×; prints
// median and p95 frame time, the share of frames over 16.7 ms, the load average, and the map's chunk as
// fetched when the map opens. The mid laptop is measured, not assumed: each run prints Lighthouse's
// BenchmarkIndex of the page's CPU (Lighthouse's own function), to set against its table of device classes
// (docs/benchmarks.md): this machine's 2,350-3,240 is above a high-end desktop's, and at 2× (1,150-1,270)
// a low-end desktop's (1,000-1,500, an Intel NUC i3), about a mid laptop.
//
// This machine has no GPU: WebGL runs in SwiftShader, and the frame times are mostly its rasterising. So the
// run is also traced (CDP), and the bench prints what a laptop's CPU does per frame whatever its GPU: the
// main thread's CPU time in each frame the map drew, less its read-back from SwiftShader, and of it MapLibre's
// render (the map chunk's requestAnimationFrame callbacks); with the React commits and the cells answers
// during the pan (a commit or a `setData` per frame would be the product's waste). The measurement's own
// script is taken out and printed apart: the bench's requestAnimationFrame tick and the listeners Playwright
// puts in the page to check its clicks' targets, scripts the service did not send (no URL of theirs). And
// one more drag counts WebGL's draw calls: what a frame asks of a GPU. Nothing of it is in the bundle:
// React's commits are counted through the hook React DevTools use, which React calls in production.
//
//   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:25600/postgres npm run bench:map   (after `npx vite build`)
//
// Data: the seed places each city's companies within a few km of it, so no view of it holds 5,000 cells.
// The bench seeds a database of its own on that PostgreSQL server (`leads_bench_map`, dropped at the end),
// then spreads the companies evenly over 30° × 16° of Europe with one UPDATE through the service's own
// tables (their H3 cells computed as the seed computes them; the statement triggers move the data version,
// so the service's caches follow). At zoom 5 the whole spread is in view: the answer is its 5,000 busiest
// cells (MAX_CELLS). DIST_DIR: the build to serve (default dist); MAP_BENCH_COMPANIES (default 30,000);
// MAP_BENCH_SECONDS per run (default 6); MAP_BENCH_GPU=1 on a machine with a GPU, to draw with it;
// MAP_BENCH_TRACE_DIR to keep each run's trace (map-pan-1x.json, map-pan-2x.json; DevTools opens them).
import { spawn } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import { gzipSync } from 'node:zlib'
import { chromium } from '@playwright/test'
import { pageFunctions } from 'lighthouse/core/lib/page-functions.js'
import pg from 'pg'
import { cellsOf } from '../server/src/lib/geometry.ts'
import { chromiumPath, demoRefreshToken } from './perf-service.mjs'

const server = process.env.BENCH_DATABASE_URL
if (!server) {
  console.error('BENCH_DATABASE_URL (a PostgreSQL server the bench may create a database in) is required')
  process.exit(1)
}
const dist = process.env.DIST_DIR ?? 'dist'
if (!existsSync(`${dist}/index.html`)) {
  console.error(`${dist}/index.html not found: run \`npx vite build\` first`)
  process.exit(1)
}
/**
 * The page's main thread per frame, from the run's trace. A frame runs from one BeginMainThreadFrame to the
 * next, and its work is the thread time of the tasks that start in it: CPU time, which the other jobs of a
 * shared machine do not inflate as they do wall time. At 2× it includes the throttle's stalls, which Chromium
 * spins on the thread as a slower CPU would take them; it sizes them by wall time, so on a loaded machine
 * they over-count. The read-back is taken out: with --disable-gpu the compositor is software, so each frame
 * the main thread waits for SwiftShader to draw the map and copies the picture back, which a laptop's GPU
 * compositing does not do; so is the measurement's own script. Only the frames in which the map drew count:
 * `mapFiles`' requestAnimationFrame callbacks, MapLibre's render. And the longest frame's CPU time of all,
 * drawn or not: where a cells answer arriving during the pan is turned into the table's areas and the map's data.
 */
function mainThreadFrames(events, mapFiles) {
  const mark = events.find((e) => e.name === 'bench-frame') // the page's own rAF tick: its renderer's main thread
  const main = events.filter((e) => e.pid === mark.pid && e.tid === mark.tid)
  const cpu = (e) => e.tdur ?? e.dur ?? 0
  const tasks = main.filter((e) => e.name === 'ThreadControllerImpl::RunTask' && e.dur !== undefined)
  const inside = (e, t) => e.ts >= t.ts && e.ts < t.ts + t.dur
  // a frame begins with the task that begins it, so that its requestAnimationFrame callbacks and commit are its own
  const starts = main
    .filter((e) => e.name === 'BeginMainThreadFrame')
    .map((b) => tasks.find((t) => inside(b, t))?.ts ?? b.ts)
    .sort((a, b) => a - b)
  const frames = starts.slice(0, -1).map((ts, i) => ({ wall: starts[i + 1] - ts, cpu: 0, render: 0, readBack: 0, bench: 0, drew: false }))
  const frameOf = (ts) => {
    let lo = 0
    let hi = starts.length - 1
    if (ts < starts[0] || ts >= starts[hi]) return null
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1
      if (starts[mid] <= ts) lo = mid
      else hi = mid
    }
    return frames[lo]
  }
  for (const t of tasks) {
    const f = frameOf(t.ts)
    if (f) f.cpu += cpu(t)
  }
  // the read-back (its copy and its wait) and any other wait for the GPU process, each counted once
  const readBacks = main.filter((e) => e.name === 'GLES2::ReadPixels' && e.dur !== undefined)
  const waits = main.filter(
    (e) => /^CommandBufferProxyImpl::WaitFor/.test(e.name) && e.dur !== undefined && !readBacks.some((r) => inside(e, r)),
  )
  for (const w of [...readBacks, ...waits]) {
    const f = frameOf(w.ts)
    if (f) [f.cpu, f.readBack] = [f.cpu - cpu(w), f.readBack + w.dur]
  }
  const calls = main.filter((e) => e.name === 'FunctionCall' && e.dur !== undefined)
  // the measurement's own script (no URL: evaluated by the bench or put in by Playwright), each outermost call once
  let outer = null
  for (const c of calls.filter((c) => !c.args?.data?.url).sort((a, b) => a.ts - b.ts)) {
    if (outer && inside(c, outer)) continue
    outer = c
    const f = frameOf(c.ts)
    if (f) [f.cpu, f.bench] = [f.cpu - cpu(c), f.bench + cpu(c)]
  }
  for (const raf of main.filter((e) => e.name === 'FireAnimationFrame' && e.dur !== undefined)) {
    const call = calls.find((c) => inside(c, raf))
    const url = call?.args?.data?.url
    const f = frameOf(raf.ts)
    if (!f || !url || !mapFiles.has(new URL(url).pathname)) continue
    f.render += cpu(raf)
    f.drew = true
  }
  return { drew: frames.filter((f) => f.drew), longest: Math.max(...frames.map((f) => f.cpu)) }
}
/** [median, p95] */
const spread = (list) => {
  const sorted = [...list].sort((a, b) => a - b)
  return [0.5, 0.95].map((q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN)
}

const COMPANIES = Number(process.env.MAP_BENCH_COMPANIES ?? 30_000)
const SECONDS = Number(process.env.MAP_BENCH_SECONDS ?? 6)
const GPU = process.env.MAP_BENCH_GPU === '1'
const DB = 'leads_bench_map'
const PORT = 4651 + Math.floor(Math.random() * 300)

const admin = new pg.Client({ connectionString: server })
await admin.connect()
await admin.query(`DROP DATABASE IF EXISTS ${DB} WITH (FORCE)`)
await admin.query(`CREATE DATABASE ${DB}`)
const url = new URL(server)
url.pathname = `/${DB}`

const service = spawn(process.execPath, ['--import', 'tsx', 'server/src/main.ts'], {
  stdio: ['ignore', 'ignore', 'inherit'],
  env: {
    ...process.env,
    PORT: String(PORT),
    DATABASE_URL: url.href,
    SEED_COMPANIES: String(COMPANIES),
    DIST_DIR: dist,
    LOGIN_PER_MINUTE: '1000',
  },
})
const baseURL = `http://127.0.0.1:${PORT}`
// on any failure too (the next run drops its database first)
process.on('exit', () => service.kill('SIGTERM'))
const stop = async () => {
  service.kill('SIGTERM')
  await new Promise((r) => (service.exitCode !== null ? r() : service.once('exit', r)))
  await admin.query(`DROP DATABASE IF EXISTS ${DB} WITH (FORCE)`)
  await admin.end()
}
for (let started = Date.now(); ;) {
  if (service.exitCode !== null) throw new Error(`the service exited with ${service.exitCode}`)
  if (
    await fetch(`${baseURL}/api/plans/`).then(
      (r) => r.ok,
      () => false,
    )
  )
    break
  if (Date.now() - started > 600_000) throw new Error('the service did not answer within 10 minutes')
  await new Promise((r) => setTimeout(r, 500))
}

// every company to an even spread over lng −5…25, lat 42…58, its cells as the seed writes them
const db = new pg.Client({ connectionString: url.href })
await db.connect()
const ids = (await db.query('SELECT id FROM companies ORDER BY id')).rows.map((r) => r.id)
let state = 26
const rand = () => (state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31
const lat = ids.map(() => 42 + rand() * 16)
const lng = ids.map(() => -5 + rand() * 30)
const cells = [[], [], [], []]
for (let i = 0; i < ids.length; i++) cellsOf(lat[i], lng[i]).forEach((c, r) => cells[r].push(c))
await db.query(
  `UPDATE companies c SET latitude = v.lat, longitude = v.lng, h3_r3 = v.r3, h3_r5 = v.r5, h3_r7 = v.r7, h3_r9 = v.r9
   FROM unnest($1::int[], $2::float8[], $3::float8[], $4::bigint[], $5::bigint[], $6::bigint[], $7::bigint[])
     AS v(id, lat, lng, r3, r5, r7, r9)
   WHERE c.id = v.id`,
  [ids, lat, lng, ...cells],
)
await db.end()

// a worker's script has no body for the page's CDP session: the built file is what the service sent
const bodyOf = (r) =>
  r.body().catch(() => {
    const file = `${dist}${new URL(r.url()).pathname}`
    return existsSync(file) ? readFileSync(file) : Buffer.alloc(0)
  })
const browser = await chromium.launch({
  executablePath: chromiumPath,
  // without a GPU, WebGL through SwiftShader (software), as in the e2e tests (playwright.config.ts)
  args: [
    '--no-sandbox',
    ...(GPU ? [] : ['--disable-gpu', '--enable-unsafe-swiftshader']),
    '--disable-background-networking',
    '--no-first-run',
  ],
})
const KB = 1024
const results = []
let chunk = null
let gpu = null
for (const throttle of [1, 2]) {
  const context = await browser.newContext({ viewport: { width: 1920, height: 1080 } })
  // a session of its own each run: a refresh token is good for one use
  await context.addInitScript((t) => localStorage.setItem('leads.refresh', t), await demoRefreshToken(baseURL))
  await context.addInitScript(() => {
    // runs in the page: React counts itself in to the hook of React DevTools, if one is there, and reports each commit
    globalThis.__commits = 0
    globalThis.__REACT_DEVTOOLS_GLOBAL_HOOK__ = {
      supportsFiber: true,
      inject: () => 1,
      checkDCE: () => {},
      onCommitFiberRoot: () => globalThis.__commits++,
      onCommitFiberUnmount: () => {},
      onPostCommitFiberRoot: () => {},
    }
    // what a frame asks of the GPU: WebGL's draw calls and their triangles, counted only while `on`
    const gl = (globalThis.__gl = { on: false, tick: 0, lastTick: -1, frames: 0, calls: 0, triangles: 0 })
    const TRIANGLES = 4
    for (const Context of [globalThis.WebGL2RenderingContext, globalThis.WebGLRenderingContext]) {
      if (!Context) continue
      const { drawElements, drawArrays } = Context.prototype
      const count = (mode, n) => {
        if (!gl.on) return
        if (gl.lastTick !== gl.tick) [gl.frames, gl.lastTick] = [gl.frames + 1, gl.tick]
        gl.calls++
        if (mode === TRIANGLES) gl.triangles += n / 3
      }
      Context.prototype.drawElements = function (mode, n, ...rest) {
        count(mode, n)
        return drawElements.call(this, mode, n, ...rest)
      }
      Context.prototype.drawArrays = function (mode, first, n) {
        count(mode, n)
        return drawArrays.call(this, mode, first, n)
      }
    }
  })
  const page = await context.newPage()
  const cdp = await context.newCDPSession(page)
  await page.goto(`${baseURL}/search`)
  // the toggle comes once the page's first load is over
  const toggle = page.getByRole('button', { name: 'Show the map' })
  await toggle.waitFor({ timeout: 180_000 })
  const scripts = []
  page.on('response', (r) => {
    if (/javascript|text\/css/.test(r.headers()['content-type'] ?? '')) scripts.push(r)
  })
  const firstCells = page.waitForResponse((r) => r.url().includes('/api/companies/cells/') && r.ok(), { timeout: 120_000 })
  await toggle.click()
  const map = page.getByTestId('map')
  await map.waitFor()
  await firstCells
  // zoom 5: the whole spread in view (the map's first view is fitted to its cells, somewhat farther out)
  const box = (await map.boundingBox()) ?? { x: 0, y: 0, width: 0, height: 0 }
  const centre = { x: box.x + box.width / 2, y: box.y + box.height / 2 }
  let shown = 0
  for (let step = 0; step < 12 && shown < 5000; step++) {
    const answer = page.waitForResponse((r) => r.url().includes('/api/companies/cells/') && r.ok(), { timeout: 15_000 }).catch(() => null)
    await page.mouse.move(centre.x, centre.y)
    await page.mouse.wheel(0, -120)
    const r = await answer
    if (r) shown = ((await r.json()).cells ?? []).length
  }
  await page.waitForTimeout(2000) // the cells drawn, the tiles of the basemap in
  if (!chunk) {
    chunk = await Promise.all(
      scripts.map(async (r) => ({ file: new URL(r.url()).pathname, gzip: gzipSync(await bodyOf(r), { level: 9 }).length })),
    )
  }
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: throttle })
  // Lighthouse's BenchmarkIndex of this page's CPU, throttled: the device class the run stands for
  const benchmarkIndex = await page.evaluate(`(${pageFunctions.computeBenchmarkIndex})()`)
  let answers = 0
  const countAnswer = (r) => r.url().includes('/api/companies/cells/') && answers++
  page.on('response', countAnswer)
  await browser.startTracing(page, {
    categories: ['toplevel', 'devtools.timeline', 'disabled-by-default-devtools.timeline.frame', 'gpu', 'blink.user_timing'],
  })
  const commits = await page.evaluate(() => {
    // runs in the page
    const w = globalThis
    w.__frames = []
    let last = performance.now()
    const tick = (now) => {
      performance.mark('bench-frame') // finds the page's main thread in the trace
      w.__frames.push(now - last)
      last = now
      if (w.__recording) w.requestAnimationFrame(tick)
    }
    w.__recording = true
    w.requestAnimationFrame(tick)
    return w.__commits
  })
  // back and forth by a third of the map's width, a mouse move every ~16 ms, for SECONDS
  const load = loadavg()[0]
  const until = Date.now() + SECONDS * 1000
  let dir = 1
  while (Date.now() < until) {
    await page.mouse.move(centre.x, centre.y)
    await page.mouse.down()
    await page.mouse.move(centre.x + (dir * box.width) / 3, centre.y + (dir * box.height) / 8, { steps: 40 })
    await page.mouse.up()
    dir = -dir
  }
  const [frames, commitsAfter] = await page.evaluate(() => {
    globalThis.__recording = false
    return [globalThis.__frames.slice(1), globalThis.__commits]
  })
  const trace = String(await browser.stopTracing())
  if (throttle === 1) {
    // one more drag, with WebGL's draws counted (not in the trace: the counting is the measurement's, not the map's)
    await page.evaluate(() => {
      // runs in the page
      const gl = globalThis.__gl
      Object.assign(gl, { on: true, frames: 0, calls: 0, triangles: 0 })
      const tick = () => gl.on && (gl.tick++, globalThis.requestAnimationFrame(tick))
      globalThis.requestAnimationFrame(tick)
    })
    await page.mouse.move(centre.x, centre.y)
    await page.mouse.down()
    await page.mouse.move(centre.x + box.width / 3, centre.y + box.height / 8, { steps: 40 })
    await page.mouse.up()
    gpu = await page.evaluate(() => Object.assign(globalThis.__gl, { on: false }))
  }
  if (process.env.MAP_BENCH_TRACE_DIR) writeFileSync(`${process.env.MAP_BENCH_TRACE_DIR}/map-pan-${throttle}x.json`, trace)
  const { drew: main, longest } = mainThreadFrames(
    JSON.parse(trace).traceEvents,
    new Set(chunk.filter((x) => x.file.endsWith('.js')).map((x) => x.file)),
  )
  page.off('response', countAnswer)
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 1 })
  const [median, p95] = spread(frames)
  results.push({
    throttle,
    benchmarkIndex,
    cells: shown,
    frames: frames.length,
    median,
    p95,
    over: frames.filter((f) => f > 16.7).length / frames.length,
    load: [load, loadavg()[0]],
    main: {
      frames: main.length,
      wall: spread(main.map((f) => f.wall)),
      cpu: spread(main.map((f) => f.cpu)),
      render: spread(main.map((f) => f.render)),
      readBack: spread(main.map((f) => f.readBack))[0],
      bench: spread(main.map((f) => f.bench))[0],
      longest,
    },
    commits: commitsAfter - commits,
    answers,
  })
  await context.close()
}
await browser.close()
await stop()

console.log(
  `the map's panning, ${SECONDS} s of mouse drags per run, ${COMPANIES.toLocaleString('en-US')} companies; WebGL through ${GPU ? 'the GPU' : 'SwiftShader (software)'}`,
)
for (const r of results) {
  console.log(
    `CPU ${r.throttle}× (Lighthouse BenchmarkIndex ${Math.round(r.benchmarkIndex).toLocaleString('en-US')}): ${r.cells.toLocaleString('en-US')} cells, ${r.frames} frames, median ${r.median.toFixed(1)} ms, p95 ${r.p95.toFixed(1)} ms, ` +
      `${(r.over * 100).toFixed(0)}% over 16.7 ms (load average ${r.load.map((l) => l.toFixed(1)).join(' → ')})`,
  )
  const ms = ([median, p95]) => `${(median / 1000).toFixed(1)} / ${(p95 / 1000).toFixed(1)} ms`
  console.log(
    `  the ${r.main.frames} frames the map drew, median / p95: ${ms(r.main.wall)} long; the main thread's CPU time ${ms(r.main.cpu)}, of which MapLibre's render ${ms(r.main.render)}; ` +
      `reading the picture back ${(r.main.readBack / 1000).toFixed(0)} ms and the measurement's own script ${(r.main.bench / 1000).toFixed(1)} ms a frame (median, taken out); during the pan ${r.commits} React commits, ${r.answers} cells answers; the longest frame's CPU time ${(r.main.longest / 1000).toFixed(1)} ms`,
  )
}
if (gpu?.frames) {
  console.log(
    `what a frame of the pan asks of the GPU (WebGL's draw calls in one more drag, ${gpu.frames} frames drawn): ` +
      `${Math.round(gpu.calls / gpu.frames)} draw calls, ${Math.round(gpu.triangles / gpu.frames).toLocaleString('en-US')} triangles, on 1,920 × 1,080 pixels`,
  )
}
const sum = (list) => list.reduce((s, x) => s + x.gzip, 0)
const js = chunk.filter((x) => x.file.endsWith('.js'))
console.log(
  `fetched when the map opens: JS ${(sum(js) / KB).toFixed(1)} KB gzip (${js.length} files), CSS ${(sum(chunk) / KB - sum(js) / KB).toFixed(1)} KB`,
)
for (const x of [...chunk].sort((a, b) => b.gzip - a.gzip)) console.log(`  ${(x.gzip / KB).toFixed(2).padStart(8)} KB  ${x.file}`)
