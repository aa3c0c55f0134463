import { benchCells } from './cells.ts'
import { benchConcurrency } from './concurrency.ts'
import { benchExport } from './export.ts'
import { benchPreview } from './preview.ts'
import { benchScale } from './scale.ts'

/**
 * `npm run bench:server`: the preview bench (S1), the export bench (S2), 50 concurrent clients on the
 * embedded database and, with BENCH_DATABASE_URL, on PostgreSQL (issue 13), then what each answer costs
 * as the data grows (issue 24, scale.ts): on the embedded database with 100,000 companies and, with
 * BENCH_DATABASE_URL, on PostgreSQL with BENCH_COMPANIES (`BENCH_COMPANIES=1000000`: the dataset is
 * seeded once into its own database on that server and kept), and the map's cells for a whole country
 * (issue 26, cells.ts). BENCH_ONLY picks some (`preview,export,concurrency,scale,cells`).
 */
const only = process.env.BENCH_ONLY?.split(',')
const wanted = (name: string) => !only || only.includes(name)
let failed = false
// every bench runs, whatever an earlier one found (no short-circuit)
const miss = (missed: boolean) => {
  if (missed) failed = true
}
if (wanted('preview')) miss((await benchPreview()).p95 > 50)
if (wanted('export')) miss((await benchExport()).ok === false)
if (wanted('concurrency')) {
  miss(!(await benchConcurrency('pglite')).ok)
  if (process.env.BENCH_DATABASE_URL) miss(!(await benchConcurrency('pg')).ok)
  else console.log('concurrency (pg): not run, set BENCH_DATABASE_URL to a PostgreSQL database to include it')
}
if (wanted('scale')) {
  miss(!(await benchScale('pglite')).ok)
  if (process.env.BENCH_DATABASE_URL) miss(!(await benchScale('pg')).ok)
  else console.log('scale (pg): not run, set BENCH_DATABASE_URL (and BENCH_COMPANIES=1000000) to include it')
}
if (wanted('cells')) {
  miss(!(await benchCells('pglite')).ok)
  if (process.env.BENCH_DATABASE_URL) miss(!(await benchCells('pg')).ok)
  else console.log('cells (pg): not run, set BENCH_DATABASE_URL (and BENCH_COMPANIES=1000000) to include it')
}
if (failed) process.exitCode = 1
