// `npm test`: every check of the project, each counted; ends with "N passed, N failed".
// Test runners report their own test counts (JSON reporters); every other check counts as one.
// Steps that do not compete for the 2 cores of CI's machine run side by side (see below); the output of
// such a step is printed in one piece when it ends, and the summary lists the steps in order.
import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs'
import { stripVTControlCharacters } from 'node:util'

const results = []
const only = process.argv.slice(2)

function run(name, cmd, args, { env = {}, count, sideBySide = false } = {}) {
  if (only.length && !only.some((o) => name.startsWith(o))) return Promise.resolve()
  const slot = results.push(null) - 1
  const started = Date.now()
  const heading = `\n=== ${name}: ${[cmd, ...args].join(' ')}`
  if (!sideBySide) console.log(heading)
  const child = spawn(cmd, args, { stdio: sideBySide ? ['ignore', 'pipe', 'pipe'] : 'inherit', env: { ...process.env, ...env } })
  const output = []
  child.stdout?.on('data', (chunk) => output.push(chunk))
  child.stderr?.on('data', (chunk) => output.push(chunk))
  return new Promise((resolve) => {
    child.on('error', (err) => (sideBySide ? output.push(Buffer.from(`${err.message}\n`)) : console.error(err.message)))
    child.on('close', (status) => {
      const seconds = ((Date.now() - started) / 1000).toFixed(1)
      let passed = status === 0 ? 1 : 0
      let failed = status === 0 ? 0 : 1
      let failedNames = []
      if (count) {
        const c = count()
        if (c) {
          passed = c.passed
          // a runner that crashed before reporting still fails the step
          failed = c.failed + (status !== 0 && c.failed === 0 ? 1 : 0)
          failedNames = c.failedNames ?? []
        }
      }
      results[slot] = { name, passed, failed, seconds, failedNames }
      if (sideBySide) {
        console.log(heading)
        process.stdout.write(Buffer.concat(output))
      }
      console.log(`=== ${name}: ${passed} passed, ${failed} failed (${seconds} s)`)
      resolve()
    })
  })
}

/** The first lines of a failure's message, without colours: what went wrong reaches the summary too. */
function why(message, at) {
  if (!message) return []
  const lines = stripVTControlCharacters(String(message))
    .split('\n')
    .map((l) => l.trimEnd())
    .filter((l) => l.trim())
    .slice(0, 4)
    .map((l) => `    ${l.slice(0, 200)}`)
  return at ? [...lines, `    at ${at}`] : lines
}

function vitestCount(file) {
  return () => {
    if (!existsSync(file)) return null
    const r = JSON.parse(readFileSync(file, 'utf8'))
    // the names of what failed go to the summary: the end of a CI log is all that is read of it
    const failedNames = r.testResults.flatMap((f) =>
      f.assertionResults
        .filter((a) => a.status !== 'passed')
        .flatMap((a) => [`${a.status}: ${f.name.replace(process.cwd() + '/', '')} › ${a.fullName}`, ...why(a.failureMessages?.[0])]),
    )
    for (const f of r.testResults)
      if (f.status === 'failed' && f.assertionResults.length === 0) failedNames.push(`failed to run: ${f.name}`, ...why(f.message))
    return {
      passed: r.numPassedTests,
      failed: r.numFailedTests + (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0),
      failedNames,
    }
  }
}

function playwrightCount(file) {
  return () => {
    if (!existsSync(file)) return null
    const report = JSON.parse(readFileSync(file, 'utf8'))
    const s = report.stats
    const failedNames = []
    const walk = (suite, trail) => {
      for (const spec of suite.specs ?? [])
        for (const t of spec.tests ?? [])
          if (t.status !== 'expected') {
            failedNames.push(`${t.status}: [${t.projectName}] ${spec.file}:${spec.line} › ${[...trail, spec.title].join(' › ')}`)
            const error = t.results?.at(-1)?.errors?.[0]
            const at = error?.location ? `${error.location.file.replace(process.cwd() + '/', '')}:${error.location.line}` : null
            failedNames.push(...why(error?.message, at))
          }
      for (const child of suite.suites ?? []) walk(child, suite.title && !suite.title.endsWith('.ts') ? [...trail, suite.title] : trail)
    }
    for (const suite of report.suites ?? []) walk(suite, [])
    return { passed: s.expected, failed: s.unexpected + s.flaky + s.skipped, failedNames }
  }
}

rmSync('test-results', { recursive: true, force: true })
mkdirSync('test-results', { recursive: true })
const npx = 'npx'

// One step at a time but for the server suite on PostgreSQL, which waits on the database much of the time:
// the build, the budgets (bytes, not times) and then the static checks run beside it, one after another, and
// cost it nothing measurable (docs/benchmarks.md, "The whole suite"). The static checks side by side with each
// other took as long as one after another on 2 cores. Without PostgreSQL they come first, as they are quickest.
const withPostgres = Boolean(process.env.TEST_DATABASE_URL)
const staticChecks = async ({ sideBySide }) => {
  await run('lint', npx, ['eslint', '.'], { sideBySide })
  await run('format', npx, ['prettier', '--check', '--log-level', 'warn', '.'], { sideBySide })
  await run('typecheck', npx, ['tsc', '-p', 'tsconfig.json', '--noEmit'], { sideBySide })
  await run('typecheck-server', npx, ['tsc', '-p', 'server/tsconfig.json', '--noEmit'], { sideBySide })
  await run('locales', 'node', ['scripts/check-locales.mjs'], { sideBySide })
}
if (!withPostgres) await staticChecks({ sideBySide: false })
await run('unit', npx, ['vitest', 'run', '--reporter=default', '--reporter=json', '--outputFile=test-results/vitest.json'], {
  count: vitestCount('test-results/vitest.json'),
})
const buildAndBudgets = async () => {
  await run('build', npx, ['vite', 'build'], { sideBySide: withPostgres })
  await run('budgets', 'node', ['scripts/check-budgets.mjs'], { sideBySide: withPostgres })
}
if (withPostgres) {
  await Promise.all([
    run(
      'server-on-postgresql',
      npx,
      ['vitest', 'run', '--project', 'server', '--reporter=default', '--reporter=json', '--outputFile=test-results/vitest-pg.json'],
      { env: { DATABASE_URL: process.env.TEST_DATABASE_URL }, count: vitestCount('test-results/vitest-pg.json'), sideBySide: true },
    ),
    buildAndBudgets().then(() => staticChecks({ sideBySide: true })),
  ])
} else {
  if (process.env.CI) {
    // CI must exercise both databases (.ci/run starts PostgreSQL and sets TEST_DATABASE_URL).
    console.log('\n=== server-on-postgresql: TEST_DATABASE_URL is not set')
    results.push({ name: 'server-on-postgresql (not run: no PostgreSQL)', passed: 0, failed: 1, seconds: '0.0' })
  }
  await buildAndBudgets()
}
await run('e2e', npx, ['playwright', 'test', '--reporter=list,json'], {
  env: { PLAYWRIGHT_JSON_OUTPUT_NAME: 'test-results/e2e.json' },
  count: playwrightCount('test-results/e2e.json'),
})

console.log('\nSummary')
for (const r of results) {
  console.log(`  ${r.failed ? 'FAIL' : 'ok  '} ${r.name}: ${r.passed} passed, ${r.failed} failed (${r.seconds} s)`)
  for (const n of (r.failedNames ?? []).slice(0, 60)) console.log(`       ${n}`)
  // a step's figures in a line or two (the end of a CI log is all that is read of it)
  const digest = `test-results/${r.name}.txt`
  if (existsSync(digest)) for (const line of readFileSync(digest, 'utf8').trim().split('\n')) console.log(`       ${line}`)
}
const passed = results.reduce((a, r) => a + r.passed, 0)
const failed = results.reduce((a, r) => a + r.failed, 0)
console.log(`${passed} passed, ${failed} failed`)
process.exit(failed ? 1 : 0)
