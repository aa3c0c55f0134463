/* global window, requestAnimationFrame -- code inside page.evaluate runs in the browser */
// Lighthouse gate on the production build served by the real service. Prints every figure.
//   /sign-in, /plans and /search (signed in as the demo account): Lighthouse 12 mobile preset
//   (simulated slow 4G, 4× CPU slowdown), Debian's Chromium, 3 runs each, the median run by
//   performance score must have performance ≥ 95, accessibility 100, best practices 100,
//   TBT ≤ 100 ms and CLS ≤ 0.02.
//   Interactions on /search under a 4× CPU slowdown (Playwright, the Event Timing API that INP is
//   built on): the format radios, the flag checkboxes and typing in the country combobox each
//   answer within 100 ms, and a clicked control shows its new state in the very next frame.
//   A miss is measured once more (the host's speed swings between runs) and fails when that misses
//   too; both measurements are printed. LIGHTHOUSE_RETRY=0 fails on the first miss.
import { spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { chromium } from '@playwright/test'
import lighthouse from 'lighthouse'
import { chromiumArgs, chromiumPath, DEMO, demoRefreshToken, startService } from './perf-service.mjs'

const RUNS = Number(process.env.LIGHTHOUSE_RUNS ?? 3)
const RETRY = process.env.LIGHTHOUSE_RETRY !== '0'
const TARGET = { performance: 0.95, accessibility: 1, 'best-practices': 1, tbt: 100, cls: 0.02, interaction: 100 }
const PAGES = [
  { name: '/sign-in', path: '/sign-in' },
  { name: '/plans', path: '/plans' },
  { name: '/search (signed in)', path: '/search', signedIn: true },
]

/** A Chromium of its own (fresh profile, so an empty cache) that Lighthouse drives through its port. */
async function launchChromium() {
  const profile = mkdtempSync(path.join(tmpdir(), 'leads-lh-'))
  const child = spawn(chromiumPath, [...chromiumArgs, '--headless=new', '--remote-debugging-port=0', `--user-data-dir=${profile}`, 'about:blank'], {
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: true, // its own process group: closing ends every Chromium process, not only the first
  })
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
      for (const e of list.getEntries()) if (e.interactionId) window.__interactions.push({ name: e.name, id: e.interactionId, duration: e.duration })
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
    await page.getByRole('option', { name: /Germany/ }).first().waitFor()
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

/** One line per measurement for `npm test`'s summary (test-results/lighthouse.txt): the end of a CI log is all it shows. */
const digest = []

const median = (runs) => [...runs].sort((a, b) => a.performance - b.performance)[Math.floor(runs.length / 2)]
const ms = (v) => `${Math.round(v)} ms`.padStart(8)
const pct = (v) => String(Math.round(v * 100)).padStart(3)

/** One measurement of every page and of the interactions, printed; what missed its target. */
async function gate(baseURL) {
  const problems = []
  const pages = []
  console.log(`Lighthouse ${RUNS} run(s) per page, mobile preset (simulated slow 4G, 4x CPU), median run by performance`)
  console.log(`${'page'.padEnd(22)} perf a11y  bp seo      FCP      LCP      TBT   CLS       SI  (runs' perf)`)
  for (const spec of RUNS > 0 ? PAGES : []) {
    const runs = []
    for (let i = 0; i < RUNS; i++) runs.push(await recordedRun(baseURL, spec))
    const m = median(runs)
    console.log(
      `${spec.name.padEnd(22)} ${pct(m.performance)}  ${pct(m.accessibility)} ${pct(m['best-practices'])} ${pct(m.seo)} ${ms(m.fcp)} ${ms(m.lcp)} ${ms(m.tbt)} ${m.cls.toFixed(3)} ${ms(m.si)}  (${runs.map((r) => pct(r.performance).trim()).join('/')})`,
    )
    pages.push(`${spec.path} ${pct(m.performance).trim()} TBT ${Math.round(m.tbt)} (${runs.map((r) => pct(r.performance).trim()).join('/')})`)
    if (!new URL(m.finalUrl).pathname.startsWith(spec.path)) problems.push(`${spec.name}: ended on ${m.finalUrl}`)
    for (const k of ['performance', 'accessibility', 'best-practices']) if (m[k] < TARGET[k]) problems.push(`${spec.name}: ${k} ${pct(m[k]).trim()} < ${pct(TARGET[k]).trim()}`)
    if (m.tbt > TARGET.tbt) problems.push(`${spec.name}: TBT ${Math.round(m.tbt)} ms > ${TARGET.tbt} ms`)
    if (m.cls > TARGET.cls) problems.push(`${spec.name}: CLS ${m.cls.toFixed(3)} > ${TARGET.cls}`)
    if (m.failing.length) console.log(`  audits not passed: ${m.failing.join(', ')}`)
  }

  const { interactions: list, stale } = await interactions(baseURL)
  console.log('\nInteractions on /search at 360 px, CPU 4x slower (worst Event Timing duration of each)')
  for (const r of list) {
    const ok = r.worst <= TARGET.interaction
    console.log(`${ok ? 'ok  ' : 'SLOW'} ${r.label.padEnd(40)} ${r.worst ? ms(r.worst) : '  < 16 ms'}  (${r.runs} run${r.runs === 1 ? '' : 's'})`)
    if (!ok) problems.push(`${r.label}: ${Math.round(r.worst)} ms > ${TARGET.interaction} ms`)
  }
  const worst = (prefix) => Math.max(0, ...list.filter((r) => r.label.startsWith(prefix)).map((r) => r.worst))
  digest.push(
    `lighthouse: ${pages.join(', ')}; interactions ms: radio ${worst('format radio') || '<16'}, checkbox ${worst('checkbox') || '<16'}, typing ${worst('typing') || '<16'}, Enter ${worst('choosing') || '<16'}${stale.length ? `; ${stale.length} stale` : ''}`,
  )
  if (stale.length) problems.push(...stale)
  else console.log('ok   every clicked control showed its new state in the next frame')
  return problems
}

const { baseURL, stop } = await startService({ lowPriority: true })
let problems
try {
  problems = await gate(baseURL)
  // This 2-core host's speed swings from one run to the next (the same code measured sign-in TBT 2 ms
  // and 98 ms, docs/benchmarks.md): a miss is measured once more, both are printed, and the gate fails
  // when the second misses too. A real regression misses both.
  if (problems.length && RETRY) {
    console.log(`\n${problems.length} below target in this measurement:\n  ${problems.join('\n  ')}\nMeasuring once more; the gate fails if that misses too.\n`)
    problems = await gate(baseURL)
  }
} finally {
  stop()
}
mkdirSync('test-results', { recursive: true })
writeFileSync('test-results/lighthouse.txt', `${digest.join('\n')}\n`)
if (problems.length) {
  console.error(`\n${problems.length} below target:\n  ${problems.join('\n  ')}`)
  process.exit(1)
}
console.log('\nlighthouse targets met')
