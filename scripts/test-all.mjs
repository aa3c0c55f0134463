// `npm test`: every check of the project, in order, each counted; ends with "N passed, N failed".
// Test runners report their own test counts (JSON reporters); every other check counts as one.
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs'

const results = []
const only = process.argv.slice(2)

function run(name, cmd, args, { env = {}, count } = {}) {
  if (only.length && !only.some((o) => name.startsWith(o))) return
  const started = Date.now()
  console.log(`\n=== ${name}: ${[cmd, ...args].join(' ')}`)
  const res = spawnSync(cmd, args, { stdio: 'inherit', env: { ...process.env, ...env } })
  const seconds = ((Date.now() - started) / 1000).toFixed(1)
  let passed = res.status === 0 ? 1 : 0
  let failed = res.status === 0 ? 0 : 1
  if (count) {
    const c = count()
    if (c) {
      passed = c.passed
      // a runner that crashed before reporting still fails the step
      failed = c.failed + (res.status !== 0 && c.failed === 0 ? 1 : 0)
    }
  }
  results.push({ name, passed, failed, seconds })
  console.log(`=== ${name}: ${passed} passed, ${failed} failed (${seconds} s)`)
}

function vitestCount(file) {
  return () => {
    if (!existsSync(file)) return null
    const r = JSON.parse(readFileSync(file, 'utf8'))
    return { passed: r.numPassedTests, failed: r.numFailedTests + (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0) }
  }
}

function playwrightCount(file) {
  return () => {
    if (!existsSync(file)) return null
    const s = JSON.parse(readFileSync(file, 'utf8')).stats
    return { passed: s.expected, failed: s.unexpected + s.flaky + s.skipped }
  }
}

rmSync('test-results', { recursive: true, force: true })
mkdirSync('test-results', { recursive: true })
const npx = 'npx'

run('lint', npx, ['eslint', '.'])
run('typecheck', npx, ['tsc', '-p', 'tsconfig.json', '--noEmit'])
run('typecheck-server', npx, ['tsc', '-p', 'server/tsconfig.json', '--noEmit'])
run('locales', 'node', ['scripts/check-locales.mjs'])
run('unit', npx, ['vitest', 'run', '--reporter=default', '--reporter=json', '--outputFile=test-results/vitest.json'], {
  count: vitestCount('test-results/vitest.json'),
})
if (process.env.TEST_DATABASE_URL) {
  run(
    'server-on-postgresql',
    npx,
    ['vitest', 'run', '--project', 'server', '--reporter=default', '--reporter=json', '--outputFile=test-results/vitest-pg.json'],
    { env: { DATABASE_URL: process.env.TEST_DATABASE_URL }, count: vitestCount('test-results/vitest-pg.json') },
  )
} else if (process.env.CI) {
  // CI must exercise both databases (.ci/run starts PostgreSQL and sets TEST_DATABASE_URL).
  console.log('\n=== server-on-postgresql: TEST_DATABASE_URL is not set')
  results.push({ name: 'server-on-postgresql (not run: no PostgreSQL)', passed: 0, failed: 1, seconds: '0.0' })
}
run('build', npx, ['vite', 'build'])
run('budgets', 'node', ['scripts/check-budgets.mjs'])
run('e2e', npx, ['playwright', 'test', '--reporter=list,json'], {
  env: { PLAYWRIGHT_JSON_OUTPUT_NAME: 'test-results/e2e.json' },
  count: playwrightCount('test-results/e2e.json'),
})

console.log('\nSummary')
for (const r of results) {
  console.log(`  ${r.failed ? 'FAIL' : 'ok  '} ${r.name}: ${r.passed} passed, ${r.failed} failed (${r.seconds} s)`)
  // a step's figures in a line or two (the end of a CI log is all that is read of it)
  const digest = `test-results/${r.name}.txt`
  if (existsSync(digest)) for (const line of readFileSync(digest, 'utf8').trim().split('\n')) console.log(`       ${line}`)
}
const passed = results.reduce((a, r) => a + r.passed, 0)
const failed = results.reduce((a, r) => a + r.failed, 0)
console.log(`${passed} passed, ${failed} failed`)
process.exit(failed ? 1 : 0)
