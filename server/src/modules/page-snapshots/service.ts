import type { Db } from '../../db/db.ts'
import { notFound } from '../../lib/errors.ts'

/** A country's page (PageSnapshot in /api/schema/): the latest stored snapshot of each section. */
export async function countryPage(db: Db, alpha2: string) {
  const code = alpha2.toUpperCase()
  const country = (
    await db.query<{ code: string; name: string; language: string }>('SELECT code, name, language FROM countries WHERE code = $1', [code])
  ).rows[0]
  if (!country) throw notFound('No such country.')
  const { rows } = await db.query<{ section: string; payload: unknown; created_at: Date | string }>(
    `SELECT DISTINCT ON (section) section, payload, created_at
       FROM page_snapshots WHERE country_code = $1
       ORDER BY section, created_at DESC, id DESC`,
    [code],
  )
  if (!rows.length) throw notFound('No snapshot for this country yet.')
  const generatedAt = Math.max(...rows.map((r) => new Date(r.created_at).getTime()))
  return {
    country: code,
    country_name: country.name,
    language: country.language,
    generated_at: new Date(generatedAt).toISOString(),
    sections: Object.fromEntries(rows.map((r) => [r.section, r.payload])),
  }
}
