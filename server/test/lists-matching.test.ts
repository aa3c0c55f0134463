import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RunningService } from '../src/service.ts'
import { startTestService, testStore, type TestService } from './helpers.ts'
import { body, signUp, type TestUser } from './account-helpers.ts'
import { CityNames } from '../src/modules/lists/city-names.ts'
import { nameKey, similarity } from '../src/modules/lists/keys.ts'
import { NAME_SIMILARITY } from '../src/modules/lists/match.ts'
import { asTestService, confirm, csv, uploaded, waitMatched } from './lists-helpers.ts'

/**
 * Issue 27: matching a list built from the seeded companies, with known answers — exact and misspelt
 * names, other formats of phones and websites, duplicates, and near-misses that must stay unmatched —
 * and a match that survives a restart of the service.
 */

let svc: TestService
let u: TestUser
beforeAll(async () => {
  svc = await startTestService()
  u = await signUp(svc)
})
afterAll(() => svc?.close())

interface Company {
  id: number
  name: string
  website: string | null
  emails: string[]
  phone: string | null
  city: string
  country: string
  site_domain: string | null
  address: string
  zipcode: string
}

/** Companies no other company shares the name and city with: the answer for a row of theirs is this one company. */
async function identifiable(limit: number): Promise<Company[]> {
  const { rows } = await svc.deps.db.query<Company>(
    `SELECT c.id, c.name, c.website, c.emails, c.phone, l.name AS city, c.country_code AS country, k.site_domain, c.address, c.zipcode
       FROM companies c JOIN company_match_keys k ON k.company_id = c.id JOIN level3_locations l ON l.id = c.level3_id
      WHERE char_length(k.name_key) >= 10
        AND NOT EXISTS (SELECT 1 FROM company_match_keys o WHERE o.level3_id = k.level3_id AND o.name_key = k.name_key AND o.company_id <> k.company_id)
        AND NOT EXISTS (SELECT 1 FROM company_match_keys o WHERE o.site_domain = k.site_domain AND o.company_id <> k.company_id)
      ORDER BY md5(c.id::text) LIMIT $1`,
    [limit],
  )
  return rows
}

/**
 * Plants beside each company another in its city (a different house number) whose name differs by
 * one letter, so that a misspelling of the first is about as like the second (within the verdict's
 * margin, and like enough to be a candidate): told apart by the street only. Returns the companies
 * for which that holds.
 */
async function crowd(companies: Company[]): Promise<Company[]> {
  const { rows: columns } = await svc.deps.db.query<{ name: string }>(
    `SELECT column_name AS name FROM information_schema.columns
      WHERE table_schema = current_schema() AND table_name = 'companies' AND column_name NOT IN ('id', 'place_id', 'name', 'address')`,
  )
  const list = columns.map((c) => c.name).join(', ')
  const crowded: Company[] = []
  for (const c of companies) {
    const at = Math.floor((c.name.length * 3) / 4)
    const letter = c.name[at]!.toLowerCase()
    if (!/[a-y]/.test(letter)) continue
    const other = c.name.slice(0, at) + String.fromCharCode(letter.charCodeAt(0) + 1) + c.name.slice(at + 1)
    const misspelt = nameKey(typo(c.name))!
    if (similarity(misspelt, nameKey(other)!) < Math.max(NAME_SIMILARITY, similarity(misspelt, nameKey(c.name)!) - 0.25)) continue
    await svc.deps.db.query(
      `INSERT INTO companies (${list}, place_id, name, address)
       SELECT ${list}, 'ChIJnear' || md5(random()::text), $2, address || '0' FROM companies WHERE id = $1`,
      [c.id, other],
    )
    crowded.push(c)
  }
  return crowded
}

/** A misspelling: one letter in the middle of the name left out. */
const typo = (name: string) => {
  const at = Math.floor(name.length / 2)
  return name.slice(0, at) + name.slice(at + 1)
}
/** A phone as written at home: without the country code, with a trunk 0 where the country has one. */
const national = (phone: string) => phone.replace(/^\+(1|44|49|33|34|972|39|48|31|66)\s?/, (_, cc: string) => (cc === '1' ? '' : '0'))

const COUNTRY_NAMES: Record<string, string> = {
  DE: 'Deutschland',
  FR: 'France',
  ES: 'España',
  GB: 'United Kingdom',
  US: 'USA',
  IL: 'ישראל',
}

describe('matching with known answers', () => {
  it('holds precision ≥ 0.98 and recall ≥ 0.9 on planted matches, duplicates and near-misses', async () => {
    const found = await identifiable(400)
    expect(found.length).toBeGreaterThan(300)
    const companies = found.slice(0, 300)
    const header = ['Firmenname', 'Ort', 'Land', 'Telefon', 'Webseite', 'E-Mail', 'Straße', 'PLZ']
    const rows: string[][] = []
    const answers: Array<number | null> = []
    companies.forEach((c, i) => {
      const ownMail = c.emails.find((e) => c.site_domain && e.endsWith(`@${c.site_domain}`))
      const variant = i % 6
      if (variant === 0 && c.website) rows.push([c.name, c.city, '', '', c.website, '', '', ''])
      else if (variant === 1 && ownMail) rows.push([c.name.toUpperCase(), '', '', '', '', ownMail, '', ''])
      else if (variant === 2 && c.phone)
        rows.push([typo(c.name), c.city, COUNTRY_NAMES[c.country] ?? c.country, national(c.phone), '', '', '', ''])
      else if (variant === 3) rows.push([`${c.name} GmbH`, c.city.toUpperCase(), '', '', '', '', '', ''])
      else if (variant === 4) rows.push([typo(c.name), c.city, '', '', '', '', c.address, c.zipcode])
      else rows.push([typo(c.name), c.city, '', '', '', 'kontakt@gmail.com', '', ''])
      answers.push(c.id)
    })
    // misspelt names as like another name of their city as their own: the street tells them apart
    const nearOthers = await crowd(found.slice(300))
    expect(nearOthers.length).toBeGreaterThan(30)
    const nearFrom = rows.length
    for (const c of nearOthers) {
      rows.push([typo(c.name), c.city, '', '', '', '', c.address, ''])
      answers.push(c.id)
    }
    // duplicates: the same business twice, written differently
    for (const c of companies.slice(0, 30)) {
      rows.push([c.name, c.city, '', c.phone ?? '', '', '', '', ''])
      answers.push(c.id)
    }
    // near-misses: a name no company has, in a real city; a real name in a city where no company has it;
    // an unknown domain and phone; a mail provider's address
    const cities = [...new Set(companies.map((c) => c.city))]
    for (let i = 0; i < 60; i++) {
      const c = companies[i]!
      const otherCity = cities.find((city) => city !== c.city && !companies.some((o) => o.city === city && o.name === c.name))!
      rows.push(
        [
          [`Zyxwvut Quantenwerkstatt ${i}`, c.city, '', '', '', '', c.address, c.zipcode],
          [c.name, otherCity, '', '', '', '', '', ''],
          [`Nobody ${i}`, '', '', `+49 30 ${String(9_000_000 + i)}`, `https://www.no-such-business-${i}.de`, '', '', ''],
          [`Somebody ${i}`, '', '', '', '', `${c.name.split(' ')[0]!.toLowerCase()}@gmail.com`, '', ''],
        ][i % 4]!,
      )
      answers.push(null)
    }

    const list = await uploaded(svc, u, { name: 'kunden.csv', bytes: `\ufeff${csv([header, ...rows], ';')}` })
    expect(list.proposed_mapping).toEqual({ name: 0, city: 1, country: 2, phone: 3, website: 4, email: 5, street: 6, postal_code: 7 })
    await confirm(svc, u, list.id, list.proposed_mapping, 'DE')
    expect(await waitMatched(svc, u, list.id)).toMatchObject({ status: 'matched', matched_rows: rows.length })

    const got = new Map<number, { status: string; company_id: number | null; rule: string | null }>()
    for (let page = 1; got.size < rows.length; page++) {
      const p = await body<{ results: Array<{ row_no: number; status: string; match: { company_id: number; rule: string } | null }> }>(
        await svc.request(`/api/lists/${list.id}/rows/?page=${page}`, { token: u.access }),
      )
      expect(p.results.length).toBeGreaterThan(0)
      for (const r of p.results)
        got.set(r.row_no, { status: r.status, company_id: r.match?.company_id ?? null, rule: r.match?.rule ?? null })
    }
    let matched = 0
    let correct = 0
    const positives = answers.filter((a) => a !== null).length
    const wrong: string[] = []
    answers.forEach((answer, i) => {
      const r = got.get(i + 1)!
      if (r.status !== 'matched') return
      matched++
      if (r.company_id === answer) correct++
      else wrong.push(`row ${i + 1} ${JSON.stringify(rows[i])}: ${r.company_id} by ${r.rule}, expected ${answer}`)
    })
    const nearFound = nearOthers.filter((c, i) => got.get(nearFrom + i + 1)!.company_id === c.id).length
    const precision = correct / matched
    const recall = correct / positives
    const report = await body<{ by_rule: Record<string, number>; matched: number; ambiguous: number; unmatched: number }>(
      await svc.request(`/api/lists/${list.id}/report/`, { token: u.access }),
    )
    console.log(
      `[lists] ${rows.length} rows (${positives} with an answer): precision ${precision.toFixed(3)}, recall ${recall.toFixed(3)}; ` +
        `matched ${report.matched}, ambiguous ${report.ambiguous}, unmatched ${report.unmatched}; by rule ${JSON.stringify(report.by_rule)}; ` +
        `misspelt names near another of their city found by the street: ${nearFound} of ${nearOthers.length}`,
    )
    expect(precision, wrong.join('\n')).toBeGreaterThanOrEqual(0.98)
    expect(recall).toBeGreaterThanOrEqual(0.9)
    expect(nearFound / nearOthers.length).toBeGreaterThanOrEqual(0.9)
    // every rule found some
    expect(report.by_rule.domain).toBeGreaterThan(0)
    expect(report.by_rule.phone).toBeGreaterThan(0)
    expect(report.by_rule.name_city).toBeGreaterThan(0)
  })
})

describe('near-miss names', () => {
  it("are pg_trgm's similarity, found among the names of the row's city", async () => {
    const db = svc.deps.db
    // pairs of the seeded names (every seeded language) and of a name and its misspelling
    const { rows: pairs } = await db.query<{ a: string; b: string; sim: number }>(
      `WITH n AS (SELECT DISTINCT name_key FROM company_match_keys),
            a AS (SELECT name_key, row_number() OVER (ORDER BY md5(name_key)) AS i FROM n),
            b AS (SELECT name_key, row_number() OVER (ORDER BY md5(name_key || 'b')) AS i FROM n),
            p AS (SELECT a.name_key AS a, b.name_key AS b FROM a JOIN b USING (i)
                  UNION ALL
                  SELECT name_key, left(name_key, i::int % length(name_key)) || substr(name_key, i::int % length(name_key) + 2) FROM a)
       SELECT a, b, similarity(a, b)::float8 AS sim FROM p`,
    )
    expect(pairs.length).toBeGreaterThan(1000)
    expect(pairs.some((p) => /[\u0590-\u05ff]/.test(p.a)) && pairs.some((p) => /[\u0e00-\u0e7f]/.test(p.a))).toBe(true)
    const differ = pairs.filter((p) => Math.abs(similarity(p.a, p.b) - p.sim) > 1e-6)
    expect(differ.slice(0, 5)).toEqual([])

    const { rows: cities } = await db.query<{ level3_id: number; names: string[] }>(
      `SELECT level3_id, array_agg(DISTINCT name_key) AS names FROM company_match_keys GROUP BY level3_id ORDER BY count(*) DESC LIMIT 3`,
    )
    const index = new CityNames()
    await index.load(
      db,
      cities.map((c) => c.level3_id),
    )
    let found = 0
    for (const city of cities) {
      for (const name of city.names.slice(0, 40)) {
        const wanted = typo(name)
        const { rows } = await db.query<{ name_key: string }>(
          `SELECT DISTINCT name_key FROM company_match_keys WHERE level3_id = $1 AND similarity(name_key, $2) >= $3 ORDER BY 1`,
          [city.level3_id, wanted, NAME_SIMILARITY],
        )
        const ours = index.similar(city.level3_id, wanted, NAME_SIMILARITY).sort()
        expect(ours, wanted).toEqual(rows.map((r) => r.name_key).sort())
        found += ours.length
      }
    }
    expect(found).toBeGreaterThan(60)
  })
})

describe('a restart mid-match', () => {
  it('resumes after the last batch written, keeping what was matched', async () => {
    // a store of its own, started twice
    const store = await testStore()
    const start = () => store.start()
    let first: RunningService | null = await start()
    let second: RunningService | null = null
    try {
      const { rows: companies } = await first.deps.db.query<{ id: number; website: string }>(
        `SELECT c.id, c.website FROM companies c JOIN company_match_keys k ON k.company_id = c.id
          WHERE c.website IS NOT NULL AND NOT EXISTS (SELECT 1 FROM company_match_keys o WHERE o.site_domain = k.site_domain AND o.company_id <> k.company_id)
          ORDER BY c.id LIMIT 3000`,
      )
      // batches of 500 (PGlite) and 2,000 (PostgreSQL): the stop comes after the second or third of six or five,
      // so a loaded machine's late poll still stops short of the last (CI once saw PostgreSQL's 6,000 of 6,000)
      const total = first.deps.db.kind === 'pglite' ? 3000 : 10_000
      const rows = Array.from({ length: total }, (_, i) => [companies[i % companies.length]!.website])
      const testSvc = asTestService(first)
      const owner = await signUp(testSvc)
      const list = await uploaded(testSvc, owner, { name: 'sites.csv', bytes: csv([['Website'], ...rows]) })
      // a batch long enough (PostgreSQL's 2,000 rows: 8 s) that the poll below sees the first one written
      // before the last has begun, even on a loaded machine (at 1 ms a row CI once saw all 6,000 done)
      process.env.LEADS_TEST_LIST_ROW_DELAY_MS = first.deps.db.kind === 'pglite' ? '1' : '4'
      await confirm(testSvc, owner, list.id, { website: 0 })
      for (let i = 0; ; i++) {
        const l = await body<{ matched_rows: number }>(await testSvc.request(`/api/lists/${list.id}/`, { token: owner.access }))
        if (l.matched_rows > 0) break
        if (i > 600) throw new Error('no progress')
        await new Promise((r) => setTimeout(r, 50))
      }
      await first.close()
      first = null
      process.env.LEADS_TEST_LIST_ROW_DELAY_MS = '0'

      second = await start()
      const { rows: held } = await second.deps.db.query<{ status: string; matched_rows: number; attempts: number }>(
        'SELECT status, matched_rows, attempts FROM lists WHERE id = $1',
        [list.id],
      )
      // handed back by the stop, with the batches written so far
      expect(held[0]!.matched_rows).toBeGreaterThan(0)
      expect(held[0]!.matched_rows).toBeLessThan(total)
      const stoppedAt = held[0]!.matched_rows
      for (let i = 0; ; i++) {
        const l = await body<{ status: string; matched_rows: number }>(
          await asTestService(second).request(`/api/lists/${list.id}/`, { token: owner.access }),
        )
        if (l.status === 'matched') break
        if (i > 1200) throw new Error(`still ${l.status}`)
        await new Promise((r) => setTimeout(r, 50))
      }
      const { rows: done } = await second.deps.db.query<{ attempts: number; wrong: number; matched: number }>(
        `SELECT l.attempts,
                (SELECT count(*)::int FROM list_rows r WHERE r.list_id = l.id AND r.status = 'matched') AS matched,
                (SELECT count(*)::int FROM list_rows r JOIN companies c ON c.id = r.company_id
                  WHERE r.list_id = l.id AND c.website <> r.cells ->> 0) AS wrong
           FROM lists l WHERE l.id = $1`,
        [list.id],
      )
      expect(done[0]).toEqual({ attempts: 2, matched: total, wrong: 0 })
      console.log(`[lists] restart: stopped after ${stoppedAt} of ${total} rows, resumed and finished`)
    } finally {
      delete process.env.LEADS_TEST_LIST_ROW_DELAY_MS
      await first?.close()
      await second?.close()
      await store.drop()
    }
  }, 120_000)
})
