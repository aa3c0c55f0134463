import type { Db } from '../db/db.ts'
import type { Clock } from '../lib/clock.ts'
import type { Config } from '../config.ts'
import { seedGeography } from './geo.ts'
import { seedPlaceNames } from './place-names.ts'
import { seedCategories } from './categories.ts'
import { seedCompanies } from './companies.ts'
import { DEMO_EMAIL, seedAccounts } from './accounts.ts'

export const SEED_VERSION = 1

/**
 * Tables the service's migrations own; the seed's rebuild empties all of them but these (the data
 * version's one row moves on with the rebuild instead: caches keyed by it see new data).
 */
const KEEP = new Set(['schema_migrations', 'seed_state', 'data_version'])

/**
 * Seeds plans, geography, categories, companies and the demo account on first start; later starts
 * reuse what is there. Atomic in effect: the seed counts as done only once `seed_state` is written,
 * last. A database holding seed data without that marker is a first start that was killed: it is
 * emptied and seeded again (the log says so). Deterministic: the same SEED_COMPANIES gives the same data.
 */
export async function seedIfEmpty(db: Db, config: Config, clock: Clock): Promise<void> {
  const done = await db.query<{ companies: number }>('SELECT companies FROM seed_state WHERE id = 1')
  // a database seeded before the places had their other names (migration 028) gets them now
  if (done.rows[0]) return seedPlaceNames(db)
  const partial = (
    await db.query<{ n: number; accounts: number }>(
      `SELECT (SELECT count(*)::int FROM countries) + (SELECT count(*)::int FROM plans) + (SELECT count(*)::int FROM categories)
              + (SELECT count(*)::int FROM companies) + (SELECT count(*)::int FROM users) AS n,
              (SELECT count(*)::int FROM users WHERE email <> $1) AS accounts`,
      [DEMO_EMAIL],
    )
  ).rows[0]!
  if (partial.n > 0) {
    // Accounts other than the demo one exist only once a seed completed and people signed up: never
    // wipe those. (It cannot happen through the service: it listens only after the seed is done.)
    if (partial.accounts > 0)
      throw new Error('The database holds accounts but no completed seed: refusing to rebuild it. Inspect it by hand.')
    console.log('Seed incomplete (an earlier first start was interrupted): rebuilding it')
    const { rows } = await db.query<{ name: string }>(`SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema()`)
    const tables = rows.map((r) => r.name).filter((t) => !KEEP.has(t))
    if (tables.length) await db.exec(`TRUNCATE ${tables.map((t) => `"${t}"`).join(', ')} RESTART IDENTITY CASCADE`)
  } else {
    console.log('Seeding the database (first start)')
  }
  const started = Date.now()
  const pauseAt = config.testClock ? process.env.LEADS_TEST_SEED_PAUSE : undefined
  const step = async (name: string, run: () => Promise<void>) => {
    await run()
    console.log(`Seed: ${name} done`)
    // test hook (test clock only): hold here so a test can kill the process at a known point
    if (pauseAt === name) await new Promise(() => undefined)
  }
  await step('geography', () => seedGeography(db))
  await step('place names', () => seedPlaceNames(db))
  await step('categories', () => seedCategories(db))
  await step('companies', () => seedCompanies(db, { count: config.seedCompanies, now: clock.now() }))
  await step('accounts', () => seedAccounts(db, { now: clock.now(), config }))
  await db.query('INSERT INTO seed_state (id, version, companies, completed_at) VALUES (1, $1, $2, $3)', [
    SEED_VERSION,
    config.seedCompanies,
    clock.now(),
  ])
  console.log(`Seed complete: ${config.seedCompanies} companies in ${((Date.now() - started) / 1000).toFixed(1)} s`)
}
