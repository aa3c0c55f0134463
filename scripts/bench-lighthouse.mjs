/* global window, requestAnimationFrame -- code inside page.evaluate runs in the browser */
// `npm run bench:lighthouse` (after `npx vite build`): a benchmark of the production build served by
// the real service, not a test gate (issue 23: the host's speed swings more than the figures do).
//   /sign-in, /plans and /search (signed in as the demo account): Lighthouse 12 mobile preset
//   (simulated slow 4G, 4× CPU slowdown), Debian's Chromium, LIGHTHOUSE_RUNS runs each (default 5),
//   the pages alternating run by run; the median run by performance is printed beside its target
//   (performance ≥ 95, accessibility and best practices 100, TBT ≤ 100 ms, CLS ≤ 0.02) with the
//   load average of the machine.
//   Interactions on /search under a 4× CPU slowdown (Playwright, the Event Timing API that INP is
//   built on): the format radios, the flag checkboxes and typing in the country combobox, each
//   against 100 ms. `npm test` keeps the facts (e2e/controls-next-frame.spec.ts: the next frame
//   shows a click, no layout shift; e2e/first-paint.spec.ts: the prerendered page; the budgets).
//   Exits non-zero when a median misses its target, so a comparison script can tell.
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import path from 'node:path'
import { chromium } from '@playwright/test'
import lighthouse from 'lighthouse'
import { chromiumArgs, chromiumPath, DEMO, demoRefreshToken, startService } from './perf-service.mjs'

const RUNS = Number(process.env.LIGHTHOUSE_RUNS ?? 5)
const TARGET = { performance: 0.95, accessibility: 1, 'best-practices': 1, tbt: 100, cls: 0.02, interaction: 100 }
const PAGES = [
  { name: '/sign-in', path: '/sign-in' },
  { name: '/plans', path: '/plans' },
  { name: '/search (signed in)', path: '/search', signedIn: true },
]

/** A Chromium of its own (fresh profile, so an empty cache) that Lighthouse drives through its port. */
async function launchChromium() {
  const profile = mkdtempSync(path.join(tmpdir(), 'leads-lh-'))
  const child = spawn(
    chromiumPath,
    [...chromiumArgs, '--headless=new', '--remote-debugging-port=0', `--user-data-dir=${profile}`, 'about:blank'],
    {
      stdio: ['ignore', 'ignore', 'pipe'],
      detached: true, // its own process group: closing ends every Chromium process, not only the first
    },
  )
  const port = await new Promise((resolve, reject) => {
    let err = ''
    child.stderr.on('data', (d) => {
      err += d
      const m = /DevTools listening on ws:\/\/[^:]+:(\d+)\//.exec(err)
      if (m) resolve(Number(m[1]))
    })
    child.on('exit', (code) => reject(new Error(`Chromium exited with ${code}: ${err}`)))
  })
  return {
    port,
    close: async () => {
      const exited = new Promise((resolve) => child.once('exit', resolve))
      process.kill(-child.pid, 'SIGKILL')
      await exited
      await new Promise((r) => setTimeout(r, 200)) // the group's last writes
      rmSync(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 })
    },
  }
}

/**
 * Signs the profile in through the sign-in page, as a person would (the dashboard then holds its
 * refresh token and its page hints), then empties the HTTP cache: the measured load is a returning
 * signed-in person's, with nothing of the dashboard's code cached. The service runs at the lowest CPU
 * priority (scripts/perf-service.mjs): its work is not the phone's.
 */
async function signInProfile(port, baseURL) {
  const browser = await chromium.connectOverCDP(`http://127.0.0.1:${port}`)
  const page = await browser.contexts()[0].newPage()
  await page.goto(`${baseURL}/sign-in`)
  await page.getByLabel('Email').fill(DEMO.username)
  await page.getByLabel('Password').fill(DEMO.password)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.waitForURL(`${baseURL}/search`)
  // the page's queries answered once, as a service in use has them: the measured load is the page's
  await page.waitForLoadState('networkidle')
  const cdp = await page.context().newCDPSession(page)
  await cdp.send('Network.clearBrowserCache')
  await page.close()
  await browser.close()
}

class LighthouseRuntimeError extends Error {}

async function measure(baseURL, spec) {
  const chrome = await launchChromium()
  try {
    if (spec.signedIn) await signInProfile(chrome.port, baseURL)
    const result = await lighthouse(`${baseURL}${spec.path}`, {
      port: chrome.port,
      output: 'json',
      logLevel: 'error',
      onlyCategories: ['performance', 'accessibility', 'best-practices', 'seo'],
      // the profile is fresh or its cache emptied (signInProfile); keeping storage keeps the signed-in session
      disableStorageReset: true,
    })
    const { lhr } = result
    if (process.env.LIGHTHOUSE_SAVE) {
      const name = path.join(process.env.LIGHTHOUSE_SAVE, `${spec.path.slice(1)}-${Date.now()}`)
      writeFileSync(`${name}.json`, result.report)
      const trace = result.artifacts?.Trace ?? result.artifacts?.traces?.defaultPass
      if (trace) writeFileSync(`${name}.trace.json`, JSON.stringify(trace))
    }
    if (lhr.runtimeError) throw new LighthouseRuntimeError(`${spec.name}: ${lhr.runtimeError.code} ${lhr.runtimeError.message}`)
    const cat = (id) => lhr.categories[id]?.score ?? 0
    const failing = Object.values(lhr.audits)
      .filter((a) => a.score !== null && a.score < 1 && a.scoreDisplayMode === 'binary')
      .map((a) => a.id)
    return {
      performance: cat('performance'),
      accessibility: cat('accessibility'),
      'best-practices': cat('best-practices'),
      seo: cat('seo'),
      fcp: lhr.audits['first-contentful-paint'].numericValue,
      lcp: lhr.audits['largest-contentful-paint'].numericValue,
      tbt: lhr.audits['total-blocking-time'].numericValue,
      cls: lhr.audits['cumulative-layout-shift'].numericValue,
      si: lhr.audits['speed-index'].numericValue,
      finalUrl: lhr.finalDisplayedUrl,
      failing,
    }
  } finally {
    await chrome.close()
  }
}

/**
 * One run; a run Lighthouse itself could not record (its runtime errors, such as NO_NAVSTART, end in
 * "Please run Lighthouse again") is run again, once: that is a failed recording, not a measurement.
 */
async function recordedRun(baseURL, spec) {
  try {
    return await measure(baseURL, spec)
  } catch (error) {
    if (!(error instanceof LighthouseRuntimeError)) throw error
    console.log(`  ${error.message}: running it again`)
    return measure(baseURL, spec)
  }
}

/** Interactions on the signed-in search page with the CPU slowed 4×, read from Event Timing entries. */
async function interactions(baseURL) {
  const browser = await chromium.launch({ executablePath: chromiumPath, args: chromiumArgs })
  const context = await browser.newContext({ viewport: { width: 360, height: 800 } })
  await context.addInitScript((t) => localStorage.setItem('leads.refresh', t), await demoRefreshToken(baseURL))
  await context.addCookies([{ name: 'leads.signed-in', value: '1', url: baseURL }])
  await context.addInitScript(() => {
    window.__interactions = []
    new PerformanceObserver((list) => {
      for (const e of list.getEntries())
        if (e.interactionId) window.__interactions.push({ name: e.name, id: e.interactionId, duration: e.duration })
    }).observe({ type: 'event', durationThreshold: 16, buffered: true })
  })
  const page = await context.newPage()
  await page.goto(`${baseURL}/search`, { waitUntil: 'networkidle' })
  const cdp = await context.newCDPSession(page)
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 })

  const results = []
  const stale = []
  /**
   * A person's click: the mouse pressed at the control's centre. Not `locator.click()`, whose check that
   * the click lands on the control runs Playwright's own listeners in the page, inside the measured
   * interaction (a few milliseconds at 4x that no person's click carries).
   */
  const personClick = async (locator) => {
    await locator.scrollIntoViewIfNeeded()
    const box = await locator.boundingBox()
    await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2)
  }
  /** A real (trusted) click; the control is read in the next animation frame: what the person sees. */
  const clickAndSee = async (label, locator, expected) => {
    await locator.evaluate((el) => {
      window.__seen = undefined
      el.addEventListener('click', () => requestAnimationFrame(() => (window.__seen = el.checked)), { once: true })
    })
    await personClick(locator)
    await page.waitForFunction(() => window.__seen !== undefined)
    const seen = await page.evaluate(() => window.__seen)
    if (seen !== expected) stale.push(`${label}: showed ${seen ? 'checked' : 'unchecked'} in the next frame`)
  }
  const run = async (label, act) => {
    await page.evaluate(() => (window.__interactions.length = 0))
    await act()
    await page.waitForTimeout(600)
    const entries = await page.evaluate(() => window.__interactions)
    const byId = new Map()
    for (const e of entries) byId.set(e.id, Math.max(byId.get(e.id) ?? 0, e.duration))
    // entries shorter than 16 ms are not reported: an interaction with none took less than that
    results.push({ label, worst: Math.max(0, ...byId.values()), count: byId.size })
  }
  const excel = page.getByRole('radio', { name: 'Excel (XLSX)' })
  const csv = page.getByRole('radio', { name: 'CSV' })
  const email = page.getByRole('checkbox', { name: 'An email address' })
  const phone = page.getByRole('checkbox', { name: 'A phone number' })
  for (let i = 0; i < 4; i++) {
    await run('format radio: Excel', () => clickAndSee('Excel radio', excel, true))
    await run('format radio: CSV', () => clickAndSee('CSV radio', csv, true))
    await run('checkbox: email on', () => clickAndSee('email checkbox', email, true))
    await run('checkbox: phone on', () => clickAndSee('phone checkbox', phone, true))
    await run('checkbox: email off', () => clickAndSee('email checkbox', email, false))
    await run('checkbox: phone off', () => clickAndSee('phone checkbox', phone, false))
  }
  const countries = page.getByRole('combobox', { name: 'Countries' })
  await run('typing "Germ" in the country combobox', async () => {
    await personClick(countries)
    await countries.pressSequentially('Germ', { delay: 120 })
  })
  await run('choosing Germany with the keyboard', async () => {
    await page
      .getByRole('option', { name: /Germany/ })
      .first()
      .waitFor()
    await countries.press('Enter')
  })
  await browser.close()
  const byLabel = new Map()
  for (const r of results) {
    const prev = byLabel.get(r.label)
    byLabel.set(r.label, { label: r.label, worst: Math.max(prev?.worst ?? 0, r.worst), runs: (prev?.runs ?? 0) + 1 })
  }
  return { interactions: [...byLabel.values()], stale }
}

const median = (runs) => [...runs].sort((a, b) => a.performance - b.performance)[Math.floor(runs.length / 2)]
const ms = (v) => `${Math.round(v)} ms`.padStart(8)
const pct = (v) => String(Math.round(v * 100)).padStart(3)
const load = () =>
  loadavg()
    .map((v) => v.toFixed(2))
    .join(' ')

/** Every page measured RUNS times, the pages alternating (a slow phase of the host hits all of them alike). */
async function bench(baseURL) {
  const problems = []
  console.log(`Lighthouse ${RUNS} run(s) per page, alternating, mobile preset (simulated slow 4G, 4x CPU); load average ${load()}`)
  const runs = new Map(PAGES.map((spec) => [spec, []]))
  for (let i = 0; i < RUNS; i++) for (const spec of PAGES) runs.get(spec).push(await recordedRun(baseURL, spec))
  console.log(`${'page'.padEnd(22)} perf a11y  bp seo      FCP      LCP      TBT   CLS       SI  (runs' perf / TBT)`)
  for (const spec of RUNS > 0 ? PAGES : []) {
    const all = runs.get(spec)
    const m = median(all)
    console.log(
      `${spec.name.padEnd(22)} ${pct(m.performance)}  ${pct(m.accessibility)} ${pct(m['best-practices'])} ${pct(m.seo)} ${ms(m.fcp)} ${ms(m.lcp)} ${ms(m.tbt)} ${m.cls.toFixed(3)} ${ms(m.si)}  (${all.map((r) => `${pct(r.performance).trim()}/${Math.round(r.tbt)}`).join(' ')})`,
    )
    if (!new URL(m.finalUrl).pathname.startsWith(spec.path)) problems.push(`${spec.name}: ended on ${m.finalUrl}`)
    for (const k of ['performance', 'accessibility', 'best-practices'])
      if (m[k] < TARGET[k]) problems.push(`${spec.name}: ${k} ${pct(m[k]).trim()} < ${pct(TARGET[k]).trim()}`)
    if (m.tbt > TARGET.tbt) problems.push(`${spec.name}: TBT ${Math.round(m.tbt)} ms > ${TARGET.tbt} ms`)
    if (m.cls > TARGET.cls) problems.push(`${spec.name}: CLS ${m.cls.toFixed(3)} > ${TARGET.cls}`)
    if (m.failing.length) console.log(`  audits not passed: ${m.failing.join(', ')}`)
  }

  const { interactions: list, stale } = await interactions(baseURL)
  console.log(`\nInteractions on /search at 360 px, CPU 4x slower (worst Event Timing duration of each); load average ${load()}`)
  for (const r of list) {
    const ok = r.worst <= TARGET.interaction
    console.log(
      `${ok ? 'ok  ' : 'SLOW'} ${r.label.padEnd(40)} ${r.worst ? ms(r.worst) : '  < 16 ms'}  (${r.runs} run${r.runs === 1 ? '' : 's'})`,
    )
    if (!ok) problems.push(`${r.label}: ${Math.round(r.worst)} ms > ${TARGET.interaction} ms`)
  }
  problems.push(...stale)
  return problems
}

const { baseURL, stop } = await startService({ lowPriority: true })
let problems
try {
  problems = await bench(baseURL)
} finally {
  stop()
}
if (problems.length) {
  console.error(`\n${problems.length} median(s) below target:\n  ${problems.join('\n  ')}`)
  process.exit(1)
}
console.log('\nevery median met its target')
