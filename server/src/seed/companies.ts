import { dropSecondaryIndexes } from '../db/bulk.ts'
import type { Db, Queryable } from '../db/db.ts'
import { cellsOf } from '../lib/geometry.ts'
import { fillCompanyKeys } from '../modules/lists/keys.ts'
import { COUNTRIES, slugify } from './geo.ts'

/** Small, fast, seedable PRNG (mulberry32): the seed is deterministic, never Math.random. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

type Rand = () => number
const pick = <T>(rand: Rand, items: readonly T[]): T => items[Math.floor(rand() * items.length)]!
const int = (rand: Rand, min: number, max: number) => min + Math.floor(rand() * (max - min + 1))
const digits = (rand: Rand, n: number) => Array.from({ length: n }, () => int(rand, 0, 9)).join('')

/** Picks from cumulative weights in O(log n). */
function weightedPicker<T>(items: readonly T[], weights: readonly number[]): (rand: Rand) => T {
  const cumulative: number[] = []
  let total = 0
  for (const w of weights) cumulative.push((total += w))
  return (rand) => {
    const x = rand() * total
    let lo = 0
    let hi = cumulative.length - 1
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if (cumulative[mid]! > x) hi = mid
      else lo = mid + 1
    }
    return items[lo]!
  }
}

/** [as written locally, Latin form for domains and e-mail addresses] */
type Word = readonly [string, string]
const latin = (words: readonly string[]): Word[] => words.map((w) => [w, w])

interface Locale {
  surnames: readonly Word[]
  places: readonly Word[]
  /** How a business name is put together from its category word and a surname or place word. */
  name: (category: string, word: string, rand: Rand) => string
  streets: readonly string[]
  address: (street: string, n: number) => string
}

const LOCALES: Record<string, Locale> = {
  en: {
    surnames: latin([
      'Smith',
      'Johnson',
      'Williams',
      'Brown',
      'Jones',
      'Miller',
      'Davis',
      'Wilson',
      'Taylor',
      'Clark',
      'Walker',
      'Hall',
      'Young',
      'King',
      'Wright',
      'Green',
      'Baker',
      'Carter',
    ]),
    places: latin([
      'Golden',
      'Blue Door',
      'Main Street',
      'Riverside',
      'Corner',
      'Oak Tree',
      'Sunrise',
      'Parkside',
      'Northside',
      'Central',
      'Harbour',
      'Village',
    ]),
    name: (cat, word, rand) => {
      const title = cat.replace(/\b\w/g, (ch) => ch.toUpperCase())
      return rand() < 0.5 ? `${word}'s ${title}` : `${word} ${title}`
    },
    streets: [
      'Main St',
      'Oak Ave',
      'Maple St',
      'Elm St',
      'Washington Ave',
      'Lake Rd',
      'Park Ave',
      'Cedar Ln',
      'Market St',
      'High Street',
      'Station Road',
      'Church Lane',
      'Victoria Road',
      'Mill Lane',
    ],
    address: (street, n) => `${n} ${street}`,
  },
  de: {
    surnames: latin([
      'Müller',
      'Schmidt',
      'Schneider',
      'Fischer',
      'Weber',
      'Meyer',
      'Wagner',
      'Becker',
      'Hoffmann',
      'Schulz',
      'Koch',
      'Richter',
      'Klein',
      'Wolf',
    ]),
    places: latin(['am Markt', 'zur Linde', 'Sonnenschein', 'am Rathaus', 'Central', 'am Park', 'zum Löwen']),
    name: (cat, word) => `${cat} ${word}`,
    streets: [
      'Hauptstraße',
      'Bahnhofstraße',
      'Schulstraße',
      'Gartenstraße',
      'Dorfstraße',
      'Lindenstraße',
      'Kirchstraße',
      'Goethestraße',
      'Berliner Straße',
      'Marktplatz',
    ],
    address: (street, n) => `${street} ${n}`,
  },
  fr: {
    surnames: latin([
      'Martin',
      'Bernard',
      'Dubois',
      'Thomas',
      'Robert',
      'Richard',
      'Petit',
      'Durand',
      'Leroy',
      'Moreau',
      'Simon',
      'Laurent',
      'Lefebvre',
      'Michel',
    ]),
    places: latin(['du Centre', 'de la Gare', 'du Port', 'Saint-Michel', 'du Marché', 'des Arts', 'de la Place']),
    name: (cat, word) => `${cat} ${word}`,
    streets: [
      'rue de la République',
      'rue Victor Hugo',
      'avenue Jean Jaurès',
      'rue Pasteur',
      'boulevard Gambetta',
      'rue du Général de Gaulle',
      'place de la Mairie',
      'rue de la Paix',
    ],
    address: (street, n) => `${n} ${street}`,
  },
  es: {
    surnames: latin([
      'García',
      'Fernández',
      'González',
      'Rodríguez',
      'López',
      'Martínez',
      'Sánchez',
      'Pérez',
      'Gómez',
      'Martín',
      'Jiménez',
      'Ruiz',
      'Hernández',
      'Díaz',
    ]),
    places: latin(['El Rincón', 'La Plaza', 'del Sol', 'San Juan', 'Central', 'del Puerto', 'La Esquina']),
    name: (cat, word) => `${cat} ${word}`,
    streets: [
      'Calle Mayor',
      'Calle Real',
      'Avenida de la Constitución',
      'Calle de Alcalá',
      'Plaza de España',
      'Calle Nueva',
      'Gran Vía',
      'Calle del Sol',
    ],
    address: (street, n) => `${street}, ${n}`,
  },
  it: {
    surnames: latin([
      'Rossi',
      'Russo',
      'Ferrari',
      'Esposito',
      'Bianchi',
      'Romano',
      'Colombo',
      'Ricci',
      'Marino',
      'Greco',
      'Bruno',
      'Gallo',
      'Conti',
      'De Luca',
    ]),
    places: latin(['da Mario', 'del Corso', 'La Piazza', 'Bella Vista', 'al Duomo', 'del Centro', 'San Marco']),
    name: (cat, word) => `${cat} ${word}`,
    streets: [
      'Via Roma',
      'Via Garibaldi',
      'Via Mazzini',
      'Corso Vittorio Emanuele',
      'Via Dante',
      'Piazza della Repubblica',
      'Via Cavour',
      'Via Verdi',
    ],
    address: (street, n) => `${street}, ${n}`,
  },
  nl: {
    surnames: latin([
      'de Jong',
      'Jansen',
      'de Vries',
      'van den Berg',
      'van Dijk',
      'Bakker',
      'Janssen',
      'Visser',
      'Smit',
      'Meijer',
      'de Boer',
      'Mulder',
    ]),
    places: latin(['De Zon', 'Het Centrum', 'De Molen', 'aan de Gracht', 'De Linde', 'Het Plein']),
    name: (cat, word) => `${cat} ${word}`,
    streets: ['Kerkstraat', 'Dorpsstraat', 'Molenweg', 'Stationsweg', 'Schoolstraat', 'Marktplein', 'Julianastraat', 'Wilhelminastraat'],
    address: (street, n) => `${street} ${n}`,
  },
  pl: {
    surnames: latin([
      'Nowak',
      'Kowalski',
      'Wiśniewski',
      'Wójcik',
      'Kowalczyk',
      'Kamiński',
      'Lewandowski',
      'Zieliński',
      'Szymański',
      'Woźniak',
      'Dąbrowski',
    ]),
    places: latin(['Pod Lipą', 'Centrum', 'Stare Miasto', 'Pod Zegarem', 'Na Rynku', 'Pod Dębem']),
    name: (cat, word) => `${cat} ${word}`,
    streets: ['ul. Mickiewicza', 'ul. Słowackiego', 'ul. Kościuszki', 'ul. Długa', 'ul. Polna', 'ul. Lipowa', 'ul. Kolejowa', 'ul. 3 Maja'],
    address: (street, n) => `${street} ${n}`,
  },
  he: {
    surnames: [
      ['כהן', 'Cohen'],
      ['לוי', 'Levi'],
      ['מזרחי', 'Mizrahi'],
      ['פרץ', 'Peretz'],
      ['ביטון', 'Biton'],
      ['דהן', 'Dahan'],
      ['אברהם', 'Avraham'],
      ['פרידמן', 'Friedman'],
      ['שפירא', 'Shapira'],
      ['אזולאי', 'Azoulay'],
      ['גולן', 'Golan'],
      ['כץ', 'Katz'],
    ],
    places: [
      ['המרכז', 'Hamerkaz'],
      ['הנמל', 'Hanamal'],
      ['השדרה', 'Hasdera'],
      ['הכרמל', 'Hacarmel'],
      ['השוק', 'Hashuk'],
    ],
    name: (cat, word) => `${cat} ${word}`,
    streets: [
      'Herzl St',
      'Ben Yehuda St',
      'Rothschild Blvd',
      'Jabotinsky St',
      'Weizmann St',
      'Allenby St',
      'HaNassi Blvd',
      'Ben Gurion Blvd',
    ],
    address: (street, n) => `${street} ${n}`,
  },
  th: {
    surnames: [
      ['สมชาย', 'Somchai'],
      ['สุขใจ', 'Sukjai'],
      ['บ้านสวน', 'Baan Suan'],
      ['ทองดี', 'Thongdee'],
      ['ศรีสุข', 'Srisuk'],
      ['รุ่งเรือง', 'Rungruang'],
      ['มั่งมี', 'Mangmee'],
      ['เจริญ', 'Charoen'],
      ['สยาม', 'Siam'],
      ['ชัยพร', 'Chaiporn'],
    ],
    places: [
      ['ริมน้ำ', 'Rim Nam'],
      ['ในเมือง', 'Nai Mueang'],
      ['ทะเล', 'Talay'],
      ['ดอย', 'Doi'],
    ],
    name: (cat, word) => `${cat} ${word}`,
    streets: [
      'Sukhumvit Rd',
      'Silom Rd',
      'Rama IV Rd',
      'Charoen Krung Rd',
      'Phahonyothin Rd',
      'Ratchadamri Rd',
      'Nimmanhaemin Rd',
      'Thapae Rd',
    ],
    address: (street, n) => `${n} ${street}`,
  },
}

const TLD: Record<string, string> = {
  US: 'com',
  GB: 'co.uk',
  DE: 'de',
  FR: 'fr',
  ES: 'es',
  IL: 'co.il',
  TH: 'co.th',
  IT: 'it',
  NL: 'nl',
  PL: 'pl',
}

/** Phone numbers in each country's usual international notation. */
const PHONE: Record<string, (rand: Rand) => string> = {
  US: (r) => `+1 ${int(r, 201, 989)} ${int(r, 200, 999)} ${digits(r, 4)}`,
  GB: (r) => `+44 ${pick(r, ['20', '161', '121', '113', '131', '141', '29', '28'])} ${digits(r, 4)} ${digits(r, 4)}`,
  DE: (r) => `+49 ${pick(r, ['30', '89', '69', '40', '221', '211', '711', '351'])} ${digits(r, 7)}`,
  FR: (r) => `+33 ${int(r, 1, 5)} ${digits(r, 2)} ${digits(r, 2)} ${digits(r, 2)} ${digits(r, 2)}`,
  ES: (r) => `+34 9${digits(r, 2)} ${digits(r, 3)} ${digits(r, 3)}`,
  IL: (r) => `+972 ${pick(r, ['2', '3', '4', '8', '9'])}-${digits(r, 3)}-${digits(r, 4)}`,
  TH: (r) => `+66 ${pick(r, ['2', '53', '76', '38', '43'])} ${digits(r, 3)} ${digits(r, 4)}`,
  IT: (r) => `+39 0${int(r, 2, 9)} ${digits(r, 4)} ${digits(r, 4)}`,
  NL: (r) => `+31 ${pick(r, ['20', '10', '70', '30', '40', '50'])} ${digits(r, 3)} ${digits(r, 4)}`,
  PL: (r) => `+48 ${pick(r, ['22', '12', '32', '61', '58', '71', '42'])} ${digits(r, 3)} ${digits(r, 2)} ${digits(r, 2)}`,
}

/** First three digits of ZIP codes by state. */
const US_ZIP_PREFIX: Record<string, string> = {
  'US-CA': '900',
  'US-NY': '100',
  'US-TX': '770',
  'US-IL': '606',
  'US-MA': '021',
  'US-MO': '641',
  'US-FL': '331',
  'US-WA': '981',
  'US-OR': '972',
}
const UPPER = 'ABDEFGHJLNPQRSTUWXYZ'
/** A postcode in the country's format, stable per city (prefix) with a random tail. */
function zipcode(country: string, cityBase: number, l1Code: string, l2Code: string, rand: Rand): string {
  switch (country) {
    case 'FR':
      return `${l2Code.padStart(2, '0')}${String((cityBase % 9) * 100 + int(rand, 0, 99)).padStart(3, '0')}`
    case 'TH':
      return `${l1Code.slice(3)}${digits(rand, 3)}`
    case 'GB':
      return `${UPPER[cityBase % UPPER.length]}${UPPER[(cityBase >> 3) % UPPER.length]}${(cityBase % 19) + 1} ${int(rand, 1, 9)}${pick(rand, [...UPPER])}${pick(rand, [...UPPER])}`
    case 'NL':
      return `${1000 + (cityBase % 8999)} ${pick(rand, [...UPPER])}${pick(rand, [...UPPER])}`
    case 'US':
      return `${US_ZIP_PREFIX[l1Code] ?? '100'}${String(cityBase % 100).padStart(2, '0')}`
    case 'PL':
      return `${String(cityBase % 100).padStart(2, '0')}-${digits(rand, 3)}`
    case 'IL':
      return `${String(cityBase % 100).padStart(2, '0')}${digits(rand, 5)}`
    default:
      return `${String(cityBase % 1000).padStart(3, '0')}${digits(rand, 2)}`
  }
}

interface CityRow {
  id: number
  country_code: string
  level1_id: number
  level2_id: number
  name: string
  latitude: number
  longitude: number
  l1_code: string
  l2_code: string
}
interface CategoryRow {
  id: number
  slug: string
  name_en: string
  names: Record<string, string>
}

const COUNTRY_BY_CODE = new Map(COUNTRIES.map((c) => [c.code, c]))
const EMAIL_PREFIXES = ['info', 'contact', 'hello', 'office', 'booking', 'sales', 'admin', 'team']
const FREE_MAIL = ['gmail.com', 'outlook.com', 'yahoo.com']
const DAY_MS = 86_400_000

/** Column arrays for one batched `INSERT … SELECT FROM unnest(…)`. */
function emptyColumns() {
  return {
    name: [] as string[],
    emails: [] as string[],
    phone: [] as (string | null)[],
    website: [] as (string | null)[],
    instagram: [] as (string | null)[],
    facebook: [] as (string | null)[],
    address: [] as string[],
    zipcode: [] as string[],
    country: [] as string[],
    level1: [] as number[],
    level2: [] as number[],
    level3: [] as number[],
    mainCategory: [] as number[],
    categories: [] as string[],
    rating: [] as (string | null)[],
    reviews: [] as number[],
    lat: [] as number[],
    lng: [] as number[],
    placeTag: [] as string[],
    createdAt: [] as string[],
    collectedAt: [] as string[],
  }
}
type Columns = ReturnType<typeof emptyColumns>

const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'

/** Each company's H3 cells (migration 030), one list per resolution, from the batch's positions. */
function batchCells(col: Columns): [string[], string[], string[], string[]] {
  const cells: [string[], string[], string[], string[]] = [[], [], [], []]
  for (let i = 0; i < col.lat.length; i++) {
    const of = cellsOf(col.lat[i]!, col.lng[i]!)
    for (let r = 0; r < 4; r++) cells[r]!.push(of[r]!)
  }
  return cells
}

async function insertBatch(q: Queryable, col: Columns): Promise<void> {
  // place_id = "ChIJ" + random tag + the row's own id (hex): unique by construction across calls.
  await q.query(
    `INSERT INTO companies (id, name, emails, phone, website, instagram, facebook, address, zipcode, country_code,
       level1_id, level2_id, level3_id, main_category_id, category_ids, rating, review_count, latitude, longitude,
       place_id, has_email, has_phone, has_website, created_at, collected_at, h3_r3, h3_r5, h3_r7, h3_r9)
     SELECT id, name, string_to_array(emails, ' '), phone, website, instagram, facebook, address, zipcode, country,
       level1, level2, level3, main_category, string_to_array(categories, ',')::int[], rating::numeric, reviews, lat, lng,
       'ChIJ' || place_tag || lpad(to_hex(id), 8, '0'), emails <> '', phone IS NOT NULL, website IS NOT NULL,
       created_at::timestamptz, collected_at::timestamptz, r3, r5, r7, r9
     FROM (
       SELECT nextval(pg_get_serial_sequence('companies', 'id'))::int AS id, t.*
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
         $9::text[], $10::int[], $11::int[], $12::int[], $13::int[], $14::text[], $15::text[], $16::int[],
         $17::float8[], $18::float8[], $19::text[], $20::text[], $21::text[], $22::bigint[], $23::bigint[], $24::bigint[], $25::bigint[])
         AS t(name, emails, phone, website, instagram, facebook, address, zipcode, country, level1, level2, level3,
           main_category, categories, rating, reviews, lat, lng, place_tag, created_at, collected_at, r3, r5, r7, r9)
     ) s`,
    [
      col.name,
      col.emails,
      col.phone,
      col.website,
      col.instagram,
      col.facebook,
      col.address,
      col.zipcode,
      col.country,
      col.level1,
      col.level2,
      col.level3,
      col.mainCategory,
      col.categories,
      col.rating,
      col.reviews,
      col.lat,
      col.lng,
      col.placeTag,
      col.createdAt,
      col.collectedAt,
      ...batchCells(col),
    ],
  )
}

interface GenerateOptions {
  count: number
  seed: number
  countries?: string[]
  /** Each company's created_at: a fixed instant, or spread over the two years before `now`. */
  createdAt: { fixed: Date } | { spreadBefore: Date }
  batchSize?: number
  /** Where each batch goes (default: one INSERT … SELECT FROM unnest per batch). */
  write?: (col: Columns) => Promise<void>
}

async function generateCompanies(db: Queryable, opts: GenerateOptions): Promise<number> {
  const write = opts.write ?? ((col: Columns) => insertBatch(db, col))
  const cities = (
    await db.query<CityRow>(
      `SELECT l3.id, l3.country_code, l3.level1_id, l3.level2_id, l3.name, l3.latitude, l3.longitude,
              l1.code AS l1_code, l2.code AS l2_code
       FROM level3_locations l3
       JOIN level1_locations l1 ON l1.id = l3.level1_id
       JOIN level2_locations l2 ON l2.id = l3.level2_id
       ORDER BY l3.id`,
    )
  ).rows.filter((c) => !opts.countries?.length || opts.countries.includes(c.country_code.trim()))
  const categories = (await db.query<CategoryRow>('SELECT id, slug, name_en, names FROM categories ORDER BY id')).rows
  if (!cities.length || !categories.length || opts.count <= 0) return 0

  // Realistic skew: a country's share by its weight; inside a country the first-listed (largest)
  // cities get most companies. Everyday categories (restaurants, cafés…) come first in the list.
  const rankInCountry = new Map<string, number>()
  const cityWeights = cities.map((c) => {
    const code = c.country_code.trim()
    const rank = rankInCountry.get(code) ?? 0
    rankInCountry.set(code, rank + 1)
    return (COUNTRY_BY_CODE.get(code)?.weight ?? 1) / Math.pow(rank + 1, 0.75)
  })
  const countryTotals = new Map<string, number>()
  cities.forEach((c, i) => countryTotals.set(c.country_code.trim(), (countryTotals.get(c.country_code.trim()) ?? 0) + cityWeights[i]!))
  const normalisedWeights = cities.map((c, i) => {
    const code = c.country_code.trim()
    return (cityWeights[i]! / countryTotals.get(code)!) * (COUNTRY_BY_CODE.get(code)?.weight ?? 1)
  })
  const pickCity = weightedPicker(cities, normalisedWeights)
  const pickCategory = weightedPicker(
    categories,
    categories.map((_, i) => 1 / Math.pow(i + 3, 0.6)),
  )

  const rand = mulberry32(opts.seed)
  const batchSize = opts.batchSize ?? 5000
  let col = emptyColumns()
  let inserted = 0

  for (let i = 0; i < opts.count; i++) {
    const city = pickCity(rand)
    const country = city.country_code.trim()
    const language = COUNTRY_BY_CODE.get(country)?.language ?? 'en'
    const locale = LOCALES[language] ?? LOCALES.en!
    const main = pickCategory(rand)
    const extra = new Set<number>([main.id])
    const extraCount = pick(rand, [0, 0, 0, 0, 1, 1, 1, 2, 2, 3])
    while (extra.size < extraCount + 1) extra.add(pickCategory(rand).id)

    const word = rand() < 0.7 ? pick(rand, locale.surnames) : pick(rand, locale.places)
    const categoryName = main.names[language] ?? main.name_en
    const name = locale.name(categoryName, word[0], rand)
    const latinCategory = language === 'he' || language === 'th' ? main.name_en : categoryName
    const domainBase = slugify(`${word[1]} ${latinCategory}`).slice(0, 40) || `business-${i}`
    const domain = `${domainBase}${rand() < 0.3 ? `-${slugify(city.name)}` : ''}.${TLD[country] ?? 'com'}`

    const hasWebsite = rand() < 0.65
    const emailCount = rand() < 0.6 ? pick(rand, [1, 1, 1, 1, 1, 1, 1, 2, 2, 3]) : 0
    const emails = new Set<string>()
    while (emails.size < emailCount) {
      const local = rand() < 0.75 ? pick(rand, EMAIL_PREFIXES) : `${slugify(word[1]).replace(/-/g, '.')}${int(rand, 1, 99)}`
      emails.add(`${local}@${hasWebsite || rand() < 0.5 ? domain : pick(rand, FREE_MAIL)}`)
    }
    const handle = domainBase.replace(/-/g, rand() < 0.5 ? '.' : '_')

    const reviews = rand() < 0.06 ? 0 : Math.floor(Math.exp(rand() * 7.2))
    const rating =
      reviews === 0 ? null : Math.min(5, Math.max(1, 4.3 + (rand() + rand() + rand() - 1.5) * 1.4 - (reviews < 5 ? rand() : 0)))

    const now = 'fixed' in opts.createdAt ? opts.createdAt.fixed : opts.createdAt.spreadBefore
    const created =
      'fixed' in opts.createdAt
        ? opts.createdAt.fixed
        : new Date(now.getTime() - Math.floor(730 * DAY_MS * Math.pow(rand(), 1.25)) - int(rand, 60_000, DAY_MS))
    const collected = new Date(Math.min(now.getTime(), created.getTime() + Math.floor(rand() * 45 * DAY_MS)))

    col.name.push(name)
    col.emails.push([...emails].join(' '))
    col.phone.push(rand() < 0.85 ? PHONE[country]!(rand) : null)
    col.website.push(hasWebsite ? `https://www.${domain}` : null)
    col.instagram.push(rand() < 0.3 ? `https://www.instagram.com/${handle}` : null)
    col.facebook.push(rand() < 0.4 ? `https://www.facebook.com/${handle}` : null)
    col.address.push(locale.address(pick(rand, locale.streets), int(rand, 1, 250)))
    col.zipcode.push(zipcode(country, city.id * 7919, city.l1_code, city.l2_code, rand))
    col.country.push(country)
    col.level1.push(city.level1_id)
    col.level2.push(city.level2_id)
    col.level3.push(city.id)
    col.mainCategory.push(main.id)
    col.categories.push([...extra].join(','))
    col.rating.push(rating === null ? null : rating.toFixed(1))
    col.reviews.push(reviews)
    // about ±2–3 km around the city centre
    col.lat.push(city.latitude + (rand() + rand() - 1) * 0.025)
    col.lng.push(city.longitude + (rand() + rand() - 1) * 0.035)
    col.placeTag.push(Array.from({ length: 15 }, () => BASE64URL[Math.floor(rand() * 64)]).join(''))
    col.createdAt.push(created.toISOString())
    col.collectedAt.push(collected.toISOString())

    if (col.name.length >= batchSize) {
      await write(col)
      inserted += col.name.length
      col = emptyColumns()
    }
  }
  if (col.name.length) {
    await write(col)
    inserted += col.name.length
  }
  return inserted
}

/** The columns a batch is copied into (COPY), in this order. */
const COPY_COLUMNS = [
  'id',
  'name',
  'emails',
  'phone',
  'website',
  'instagram',
  'facebook',
  'address',
  'zipcode',
  'country_code',
  'level1_id',
  'level2_id',
  'level3_id',
  'main_category_id',
  'category_ids',
  'rating',
  'review_count',
  'latitude',
  'longitude',
  'place_id',
  'has_email',
  'has_phone',
  'has_website',
  'created_at',
  'collected_at',
  'h3_r3',
  'h3_r5',
  'h3_r7',
  'h3_r9',
] as const

/** A CSV field for COPY: null as nothing, text always quoted (an empty text is `""`, not null). */
const csvText = (v: string | null) => (v === null ? '' : `"${v.replace(/"/g, '""')}"`)
/** A PostgreSQL array literal of texts, each element quoted. */
const arrayLiteral = (items: string[]) => `{${items.map((i) => `"${i.replace(/[\\"]/g, (ch) => `\\${ch}`)}"`).join(',')}}`

/**
 * A batch as COPY's CSV, with what insertBatch lets the database derive written out (the id, the
 * place_id from it, the presence flags), so that both paths give the same rows (and the same H3 cells).
 */
function batchCsv(col: Columns, firstId: number): string {
  const lines: string[] = []
  const cells = batchCells(col)
  for (let i = 0; i < col.name.length; i++) {
    const id = firstId + i
    const emails = col.emails[i] === '' ? [] : col.emails[i]!.split(' ')
    lines.push(
      [
        id,
        csvText(col.name[i]!),
        csvText(arrayLiteral(emails)),
        csvText(col.phone[i]!),
        csvText(col.website[i]!),
        csvText(col.instagram[i]!),
        csvText(col.facebook[i]!),
        csvText(col.address[i]!),
        csvText(col.zipcode[i]!),
        csvText(col.country[i]!),
        col.level1[i],
        col.level2[i],
        col.level3[i],
        col.mainCategory[i],
        csvText(`{${col.categories[i]}}`),
        col.rating[i] ?? '',
        col.reviews[i],
        col.lat[i],
        col.lng[i],
        csvText(`ChIJ${col.placeTag[i]}${id.toString(16).padStart(8, '0')}`),
        emails.length > 0,
        col.phone[i] !== null,
        col.website[i] !== null,
        csvText(col.createdAt[i]!),
        csvText(col.collectedAt[i]!),
        cells[0][i],
        cells[1][i],
        cells[2][i],
        cells[3][i],
      ].join(','),
    )
  }
  return `${lines.join('\n')}\n`
}

/**
 * The seed's companies, created over the two years before `now` (issue 24): COPY into the companies
 * table without its secondary indexes and with its triggers off, then the indexes built once and the
 * counts kept beside the companies (migration 025) built by one pass; then statistics and page
 * snapshots. One transaction: an interrupted seed leaves nothing behind (seed/index.ts starts again).
 * With the triggers off nothing checks that a company's categories are a set: the generator makes
 * them one.
 */
export async function seedCompanies(db: Db, opts: { count: number; now: Date }): Promise<void> {
  const started = Date.now()
  const phases: string[] = []
  const phase = (name: string) => {
    phases.push(`${name} ${((Date.now() - started) / 1000).toFixed(1)} s`)
  }
  await db.tx(async (q) => {
    // (a seed started again after an interrupted one finds its state row emptied with the rest)
    await q.query('INSERT INTO company_counts_state (id, max_id, max_created_at) VALUES (true, 0, NULL) ON CONFLICT (id) DO NOTHING')
    const derivedTables = ['company_counts', 'category_counts', 'category_country_counts', 'company_categories']
    const dropped = await dropSecondaryIndexes(q, ['companies', ...derivedTables])
    // the triggers that keep the counts and the data version: their work is done once, below
    await q.exec('ALTER TABLE companies DISABLE TRIGGER USER')
    const { rows } = await q.query<{ first: number }>(`SELECT nextval(pg_get_serial_sequence('companies', 'id'))::int AS first`)
    let nextId = rows[0]!.first
    const copy = `COPY companies (${COPY_COLUMNS.join(', ')}) FROM STDIN (FORMAT csv)`
    // one batch is copied while the next one is made (the database works on its own process or thread)
    let copying: Promise<void> = Promise.resolve()
    const inserted = await generateCompanies(q, {
      count: opts.count,
      seed: 20_240_601,
      createdAt: { spreadBefore: opts.now },
      batchSize: 20_000,
      write: async (col) => {
        const csv = batchCsv(col, nextId)
        nextId += col.name.length
        await copying
        copying = q.copyFrom(copy, csv)
        copying.catch(() => undefined) // awaited with the next batch (or below): its failure is not lost
      },
    })
    await copying
    if (inserted) await q.query(`SELECT setval(pg_get_serial_sequence('companies', 'id'), $1)`, [nextId - 1])
    phase('copied')
    // what list matching finds a company by (issue 27), written in the seed's transaction with the companies
    await fillCompanyKeys(q, 20_000)
    phase('match keys')
    await q.exec('ALTER TABLE companies ENABLE TRIGGER USER')
    await q.exec(`DO $$ DECLARE s text; BEGIN
                    FOREACH s IN ARRAY company_derived_sql('SELECT *, 1 AS d FROM companies') LOOP EXECUTE s; END LOOP;
                  END $$`)
    phase('counted')
    await dropped.restore()
    phase('indexed')
    await q.query(
      `UPDATE company_counts_state s SET max_id = greatest(s.max_id, m.max_id), max_created_at = greatest(s.max_created_at, m.max_created_at)
         FROM (SELECT coalesce(max(id), 0) AS max_id, max(created_at) AS max_created_at FROM companies) m`,
    )
    await q.query(
      `UPDATE data_version SET version = version + 1,
              max_created_at = greatest(max_created_at, (SELECT max(created_at) FROM companies))`,
    )
  })
  // VACUUM sets the visibility map (index-only counts) and merges the GIN pending list of category_ids;
  // ANALYZE gives the planner statistics.
  for (const table of ['companies', 'company_categories', 'category_counts', 'category_country_counts', 'company_counts']) {
    await db.exec(`VACUUM ANALYZE ${table}`)
  }
  await db.exec('ANALYZE')
  phase('vacuumed')
  await seedPageSnapshots(db, opts.now)
  phase('page snapshots')
  console.log(`Seed: ${opts.count} companies: ${phases.join(', ')}`)
}

/**
 * Companies created at one instant (the test hook "fresh data": POST /api/_test/new-companies/).
 * Without a seed, one is derived from the current row count and the time, so calls differ. The
 * counts beside the companies follow by their triggers (migration 025), in the same transaction.
 */
export async function insertGeneratedCompanies(
  db: Db,
  opts: { count: number; countries?: string[]; createdAt: Date; seed?: number },
): Promise<number> {
  const countries = opts.countries?.map((c) => c.toUpperCase())
  const { rows } = await db.query<{ n: number }>('SELECT coalesce(max(id), 0)::int AS n FROM companies')
  const seed = opts.seed ?? ((rows[0]!.n * 2_654_435_761) ^ opts.createdAt.getTime()) >>> 0
  const inserted = await db.tx((q) => generateCompanies(q, { count: opts.count, seed, countries, createdAt: { fixed: opts.createdAt } }))
  if (inserted > 1000) await db.exec('ANALYZE companies')
  return inserted
}

/** Per-country page data (summary, top categories, top cities) stored as snapshot sections. */
export async function seedPageSnapshots(db: Db, now: Date): Promise<void> {
  await db.query(
    `INSERT INTO page_snapshots (country_code, section, payload, created_at)
     SELECT c.code, 'summary', jsonb_build_object(
         'company_count', count(co.id),
         'with_email', count(co.id) FILTER (WHERE co.has_email),
         'with_phone', count(co.id) FILTER (WHERE co.has_phone),
         'with_website', count(co.id) FILTER (WHERE co.has_website),
         'average_rating', round(avg(co.rating), 2),
         'level1_count', (SELECT count(*) FROM level1_locations l WHERE l.country_code = c.code),
         'city_count', (SELECT count(*) FROM level3_locations l WHERE l.country_code = c.code)), $1
     FROM countries c LEFT JOIN companies co ON co.country_code = c.code AND co.created_at <= $1
     GROUP BY c.code`,
    [now.toISOString()],
  )
  await db.query(
    `INSERT INTO page_snapshots (country_code, section, payload, created_at)
     SELECT code, 'top_categories', coalesce(jsonb_agg(jsonb_build_object(
         'id', id, 'slug', slug, 'name_en', name_en, 'name', name, 'company_count', n) ORDER BY n DESC, id), '[]'), $1
     FROM (
       SELECT co.code, cat.id, cat.slug, cat.name_en, coalesce(cat.names ->> co.language, cat.name_en) AS name, co.n,
              row_number() OVER (PARTITION BY co.code ORDER BY co.n DESC, cat.id) AS rank
       FROM (SELECT c.code, c.language, x.category_id, count(*) AS n
             FROM countries c
             JOIN companies k ON k.country_code = c.code AND k.created_at <= $1
             CROSS JOIN LATERAL unnest(k.category_ids) AS x(category_id)
             GROUP BY c.code, c.language, x.category_id) co
       JOIN categories cat ON cat.id = co.category_id
     ) ranked
     WHERE rank <= 10
     GROUP BY code`,
    [now.toISOString()],
  )
  await db.query(
    `INSERT INTO page_snapshots (country_code, section, payload, created_at)
     SELECT code, 'top_cities', coalesce(jsonb_agg(jsonb_build_object(
         'id', id::text, 'name', name, 'level1_name', level1_name, 'company_count', n) ORDER BY n DESC, id), '[]'), $1
     FROM (
       SELECT l3.country_code AS code, l3.id, l3.name, l1.name AS level1_name, count(*) AS n,
              row_number() OVER (PARTITION BY l3.country_code ORDER BY count(*) DESC, l3.id) AS rank
       FROM companies k
       JOIN level3_locations l3 ON l3.id = k.level3_id
       JOIN level1_locations l1 ON l1.id = l3.level1_id
       WHERE k.created_at <= $1
       GROUP BY l3.country_code, l3.id, l3.name, l1.name
     ) ranked
     WHERE rank <= 10
     GROUP BY code`,
    [now.toISOString()],
  )
}
