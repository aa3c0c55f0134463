import { readFile } from 'node:fs/promises'
import type { Db } from '../db/db.ts'

/** place-names.json (scripts/build-place-names.py): country → level ("1", "3") → the place's own name → language → its name there. */
type PlaceNamesFile = Record<string, Record<string, Record<string, Record<string, string>>>>

/**
 * The seeded places' names in other languages (migration 028), written once: on the first start after
 * the geography, and on the first start of a database seeded before the table existed. A city name
 * two cities of one country share is left out (which one the names belong to is unknown), and a
 * county named as the city it holds (München, Kraków, Milano) takes that city's names: it is called
 * so in every language.
 */
export async function seedPlaceNames(db: Db): Promise<void> {
  const present = await db.query('SELECT 1 FROM place_names LIMIT 1')
  if (present.rows.length) return
  // ON CONFLICT below: instances starting together on one older database may both find the table empty
  const file = JSON.parse(await readFile(new URL('./place-names.json', import.meta.url), 'utf8')) as PlaceNamesFile
  const rows = { country: [] as string[], level: [] as number[], place: [] as string[], lng: [] as string[], name: [] as string[] }
  for (const [country, levels] of Object.entries(file)) {
    for (const [level, places] of Object.entries(levels)) {
      for (const [place, names] of Object.entries(places)) {
        for (const [lng, name] of Object.entries(names)) {
          rows.country.push(country)
          rows.level.push(Number(level))
          rows.place.push(place)
          rows.lng.push(lng)
          rows.name.push(name)
        }
      }
    }
  }
  await db.tx(async (q) => {
    await q.query(
      `WITH t AS (SELECT * FROM unnest($1::text[], $2::int[], $3::text[], $4::text[], $5::text[]) AS t(country, level, place, lng, name))
       INSERT INTO place_names (level, place_id, lng, name)
       SELECT 1, l1.id, t.lng, t.name FROM t JOIN level1_locations l1 ON l1.country_code = t.country AND l1.name = t.place
        WHERE t.level = 1
       UNION ALL
       SELECT 3, l3.id, t.lng, t.name FROM t JOIN level3_locations l3 ON l3.country_code = t.country AND l3.name = t.place
        WHERE t.level = 3
          AND NOT EXISTS (SELECT 1 FROM level3_locations o WHERE o.country_code = l3.country_code AND o.name = l3.name AND o.id <> l3.id)
       ON CONFLICT DO NOTHING`,
      [rows.country, rows.level, rows.place, rows.lng, rows.name],
    )
    await q.query(
      `INSERT INTO place_names (level, place_id, lng, name)
       SELECT 2, l2.id, n.lng, n.name FROM place_names n
         JOIN level3_locations l3 ON l3.id = n.place_id
         JOIN level2_locations l2 ON l2.id = l3.level2_id AND l2.name = l3.name
        WHERE n.level = 3
       ON CONFLICT DO NOTHING`,
    )
  })
}
