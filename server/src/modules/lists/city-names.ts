import type { Queryable } from '../../db/db.ts'

/**
 * Near-miss names by city (issue 27): "Baeckerei Mueler" in Köln is compared only with the names of
 * Köln's companies. Each city's distinct name keys are read once per job (an index-only scan of
 * `company_match_keys (level3_id, name_key)`) into an inverted index of their trigrams, and a name's
 * similar ones are found by counting the trigrams each city name shares with it: pg_trgm's
 * similarity, without a trigram index over all the companies (one that PGlite and PostgreSQL could
 * restrict to a city needs btree_gin) and without a database round trip per name.
 */

/** One city's distinct names, with the names holding each trigram. */
interface CityIndex {
  names: string[]
  /** how many distinct trigrams each name has */
  sizes: Uint16Array
  /** the trigrams present in the city (as `trigramCodes` writes them), ascending; the names holding trigrams[i] are postings[starts[i]..starts[i+1]) */
  trigrams: Int32Array
  starts: Int32Array
  postings: Int32Array
}

/**
 * The city indexes of one matching job, least recently used first out once they hold more than
 * `maxNames` names in all: memory is bounded whatever the list and the number of companies (the
 * 1M-company bench's 518,000 names of 503 cities take about 40 MB of heap).
 */
export class CityNames {
  private readonly cities = new Map<number, CityIndex>()
  /** each character seen → a small number, so that a trigram is one number (see trigramCodes) */
  private readonly letters = new Map<number, number>([[32, 0]])
  private held = 0
  /** how many trigrams each name of a city shares with the one looked up (grown to the largest city) */
  private shared = new Uint16Array(0)

  constructor(private readonly maxNames = 1_000_000) {}

  /** Reads the cities not held yet, then lets go of the least recently used others beyond the bound. */
  async load(q: Queryable, cityIds: Iterable<number>): Promise<void> {
    const keep = new Set(cityIds)
    const wanted = [...keep].filter((id) => !this.touch(id))
    if (!wanted.length) return
    // one row per city, its names in one text (a name key holds no line break): few objects to build
    const { rows } = await q.query<{ level3_id: number; names: string }>(
      `SELECT level3_id, string_agg(name_key, E'\\n') AS names
         FROM (SELECT DISTINCT level3_id, name_key FROM company_match_keys WHERE level3_id = ANY($1::int[])) n
        GROUP BY level3_id`,
      [wanted],
    )
    for (const r of rows) this.add(r.level3_id, r.names.split('\n'))
    for (const id of wanted) if (!this.cities.has(id)) this.add(id, [])
    // (the cities asked for stay, even when they alone are more than the bound)
    for (const [id, city] of this.cities) {
      if (this.held <= this.maxNames) break
      if (keep.has(id)) continue
      this.cities.delete(id)
      this.held -= city.names.length
    }
  }

  /** The names of the city at least `threshold` similar to `key` (pg_trgm's similarity). */
  similar(cityId: number, key: string, threshold: number): string[] {
    const city = this.cities.get(cityId)
    if (!city?.names.length) return []
    const own = this.trigramCodes(key)
    const counts = this.shared
    const touched: number[] = []
    for (const code of own) {
      const at = lowerBound(city.trigrams, code)
      if (city.trigrams[at] !== code) continue
      for (let p = city.starts[at]!; p < city.starts[at + 1]!; p++) {
        const n = city.postings[p]!
        if (counts[n] === 0) touched.push(n)
        counts[n]!++
      }
    }
    const out: string[] = []
    for (const n of touched) {
      const shared = counts[n]!
      counts[n] = 0
      if (shared / (own.length + city.sizes[n]! - shared) >= threshold) out.push(city.names[n]!)
    }
    return out
  }

  /**
   * The distinct trigrams of a name key (as keys.ts `trigrams` makes them: each word padded with two
   * spaces before and one after), added to `codes`, each as one small integer: its three characters'
   * numbers in base 1,024. Integers, not strings: the names of a city of 28,000 companies are indexed without a string
   * or a boxed number per trigram. A job meets a few hundred characters; any beyond the 1,023rd share
   * the last number (a name of such characters could seem a little more alike than it is).
   */
  private trigramCodes(key: string, codes: number[] = []): number[] {
    const from = codes.length
    for (const word of key.split(' ')) {
      if (!word) continue
      // the padding's spaces are 0
      let a = 0
      let b = 0
      for (const ch of word) {
        const cp = ch.codePointAt(0)!
        let c = this.letters.get(cp)
        if (c === undefined) this.letters.set(cp, (c = Math.min(this.letters.size, 1023)))
        const code = (a << 20) | (b << 10) | c
        if (codes.indexOf(code, from) < 0) codes.push(code)
        a = b
        b = c
      }
      const last = (a << 20) | (b << 10)
      if (codes.indexOf(last, from) < 0) codes.push(last)
    }
    return codes
  }

  private touch(id: number): boolean {
    const city = this.cities.get(id)
    if (!city) return false
    this.cities.delete(id)
    this.cities.set(id, city)
    return true
  }

  private add(cityId: number, names: string[]) {
    // the names' trigrams one after another (name n's are the next sizes[n]), then counted by trigram
    const codes: number[] = []
    const sizes = new Uint16Array(names.length)
    for (let n = 0; n < names.length; n++) {
      const before = codes.length
      this.trigramCodes(names[n]!, codes)
      sizes[n] = codes.length - before
    }
    const slots = new Map<number, number>()
    for (const code of codes) slots.set(code, (slots.get(code) ?? 0) + 1)
    const present = Int32Array.from(slots.keys()).sort()
    const starts = new Int32Array(present.length + 1)
    for (let i = 0; i < present.length; i++) {
      starts[i + 1] = starts[i]! + slots.get(present[i]!)!
      slots.set(present[i]!, starts[i]!)
    }
    // each trigram's names in order, at the next free slot of its run
    const postings = new Int32Array(codes.length)
    for (let i = 0, n = 0, end = sizes[0] ?? 0; i < codes.length; i++) {
      while (i >= end) end += sizes[++n]!
      const slot = slots.get(codes[i]!)!
      postings[slot] = n
      slots.set(codes[i]!, slot + 1)
    }
    this.cities.set(cityId, { names, sizes, trigrams: present, starts, postings })
    if (names.length > this.shared.length) this.shared = new Uint16Array(names.length)
    this.held += names.length
  }
}

/** The first index of the ascending `sorted` whose value is not below `value`. */
function lowerBound(sorted: Int32Array, value: number): number {
  let lo = 0
  let hi = sorted.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (sorted[mid]! < value) lo = mid + 1
    else hi = mid
  }
  return lo
}
