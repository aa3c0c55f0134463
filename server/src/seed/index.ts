import type { Db } from '../db/db.ts'
import type { Clock } from '../lib/clock.ts'
import type { Config } from '../config.ts'
import { seedGeography } from './geo.ts'
import { seedCategories } from './categories.ts'
import { seedCompanies } from './companies.ts'
import { seedAccounts } from './accounts.ts'

/**
 * Seeds plans, geography, categories, companies and the demo account when the database is empty
 * (first start); later starts reuse what is there. Deterministic: the same SEED_COMPANIES gives
 * the same data.
 */
export async function seedIfEmpty(db: Db, config: Config, clock: Clock): Promise<void> {
  const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM countries')
  if (rows[0]!.n > 0) return
  const started = Date.now()
  await seedGeography(db)
  await seedCategories(db)
  await seedCompanies(db, { count: config.seedCompanies, now: clock.now() })
  await seedAccounts(db, { now: clock.now(), config })
  console.log(`Seeded ${config.seedCompanies} companies in ${((Date.now() - started) / 1000).toFixed(1)} s`)
}
