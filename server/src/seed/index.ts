import type { Db } from '../db/db.ts'
import type { Clock } from '../lib/clock.ts'
import type { Config } from '../config.ts'

/** Seeds plans, geography, categories, companies and the demo account when the database is empty. */
export async function seedIfEmpty(db: Db, config: Config, clock: Clock): Promise<void> {
  void db
  void config
  void clock // TODO: not written yet
}
