import type { Db } from '../db/db.ts'
import type { Config } from '../config.ts'

export async function seedAccounts(db: Db, opts: { now: Date; config: Config }): Promise<void> {
  // TODO: not written yet
}
