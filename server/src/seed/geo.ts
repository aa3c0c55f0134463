import type { Db } from '../db/db.ts'
import type { Config } from '../config.ts'

export async function seedGeography(db: Db): Promise<void> {
  // TODO: not written yet
}
