import type { Db } from '../db/db.ts'
import type { Config } from '../config.ts'

export async function seedCompanies(db: Db, opts: { count: number; now: Date }): Promise<void> {
  // TODO: not written yet
}
