import { describe, expect, it } from 'vitest'
import { e164, mailDomain, nameKey, postcodeKey, similarity, siteDomain, streetKey, trigrams } from '../src/modules/lists/keys.ts'
import { proposeMapping } from '../src/modules/lists/mapping.ts'
import { decide, type Candidate } from '../src/modules/lists/match.ts'
import { detectDelimiter } from '../src/modules/lists/read-csv.ts'

/** Issue 27: what a row and a company are matched by, and the mapping proposed from a file's headers. */

describe('match keys', () => {
  it('takes the registrable domain of a website, with the public suffix list', () => {
    expect(siteDomain('https://www.shop.example.co.uk/contact?x=1')).toBe('example.co.uk')
    expect(siteDomain('WWW.Mueller-Baeckerei.DE')).toBe('mueller-baeckerei.de')
    expect(siteDomain('example.co.il')).toBe('example.co.il')
    expect(siteDomain('not a site')).toBeNull()
    expect(siteDomain('info@example.com')).toBeNull()
  })

  it('takes the domain of a company address, never of a mail provider', () => {
    expect(mailDomain('info@mueller-baeckerei.de')).toBe('mueller-baeckerei.de')
    expect(mailDomain('sales@eu.example.fr')).toBe('example.fr')
    for (const webmail of [
      'a@gmail.com',
      'b@yahoo.co.uk',
      'c@web.de',
      'd@hotmail.fr',
      'e@gmx.at',
      'f@seznam.cz',
      'g@wp.pl',
      'h@outlook.com',
    ])
      expect(mailDomain(webmail), webmail).toBeNull()
    // web.com is a business's domain; only web.de is the provider
    expect(mailDomain('x@web.com')).toBe('web.com')
    expect(mailDomain('no address')).toBeNull()
  })

  it('writes phones in E.164, national numbers with the country given', () => {
    expect(e164('+49 30 1234567', null)).toBe('+49301234567')
    expect(e164('030 1234567', 'DE')).toBe('+49301234567')
    expect(e164('(0)30-123 45 67', 'DE')).toBe('+49301234567')
    expect(e164('01 23 45 67 89', 'FR')).toBe('+33123456789')
    expect(e164('030 1234567', null)).toBeNull()
    expect(e164('n/a', 'DE')).toBeNull()
  })

  it('folds names: case, accents, punctuation and legal forms do not count', () => {
    expect(nameKey('Bäckerei Müller GmbH & Co. KG')).toBe('backerei muller')
    expect(nameKey('  BÄCKEREI   MÜLLER ')).toBe('backerei muller')
    expect(nameKey('Łódź Café S.A.')).toBe('lodz cafe')
    expect(nameKey('מאפיית כהן')).toBe('מאפיית כהן')
    expect(nameKey('GmbH')).toBe('gmbh')
    // the possessive's "s" is left out, as people write a name either way
    expect(nameKey("Miller's Bakery")).toBe('miller bakery')
    expect(nameKey('Miller’s Bakery Ltd')).toBe('miller bakery')
    expect(nameKey('S')).toBe('s')
  })
})

describe('names and addresses compared', () => {
  it('makes trigrams as pg_trgm does: per word, padded, each once', () => {
    expect([...trigrams('ab ab')].sort()).toEqual(['  a', ' ab', 'ab '])
    expect([...trigrams('כהן')].sort()).toEqual(['  כ', ' כה', 'כהן', 'הן '].sort())
    expect(similarity('backerei weber', 'backerei weber')).toBe(1)
    // one letter left out: 13 trigrams shared of 16 (15 and 14, each word padded)
    expect(similarity('backerei weber', 'backere weber')).toBeCloseTo(13 / 16, 6)
    expect(similarity('backerei weber', '')).toBe(0)
  })

  it('reads a street with its number however it is written, and no street without one', () => {
    expect(streetKey('Hauptstraße 12')).toBe(streetKey('Hauptstr. 12'))
    expect(streetKey('Hauptstraße 12')).toBe(streetKey('HAUPTSTRASSE 12'))
    expect(streetKey('12 Main Street')).toBe(streetKey('Main St. 12'))
    expect(streetKey('12 Main Street')).not.toBe(streetKey('14 Main Street'))
    expect(streetKey('Hauptstraße')).toBeNull()
    expect(streetKey('')).toBeNull()
  })

  it('reads a postal code without its spaces and punctuation', () => {
    expect(postcodeKey('SW1A 1AA')).toBe('sw1a1aa')
    expect(postcodeKey('10-115')).toBe(postcodeKey('10 115'))
    expect(postcodeKey(' ')).toBeNull()
  })
})

describe('the proposed mapping', () => {
  it('reads headers in many languages', () => {
    expect(proposeMapping(['Firmenname', 'Straße', 'PLZ', 'Ort', 'Telefon', 'E-Mail', 'Webseite', 'Land'])).toEqual({
      name: 0,
      street: 1,
      postal_code: 2,
      city: 3,
      phone: 4,
      email: 5,
      website: 6,
      country: 7,
    })
    expect(proposeMapping(['Nom', 'Adresse', 'Code postal', 'Ville', 'Téléphone', 'Courriel', 'Site web'])).toEqual({
      name: 0,
      street: 1,
      postal_code: 2,
      city: 3,
      phone: 4,
      email: 5,
      website: 6,
    })
    expect(proposeMapping(['Nombre de la empresa', 'Ciudad', 'Teléfono', 'Correo electrónico', 'Página web'])).toEqual({
      name: 0,
      city: 1,
      phone: 2,
      email: 3,
      website: 4,
    })
    expect(proposeMapping(['Nazwa firmy', 'Miejscowość', 'Kod pocztowy', 'Telefon', 'Strona www'])).toEqual({
      name: 0,
      city: 1,
      postal_code: 2,
      phone: 3,
      website: 4,
    })
    expect(proposeMapping(['שם העסק', 'עיר', 'טלפון', 'אתר'])).toEqual({ name: 0, city: 1, phone: 2, website: 3 })
    expect(proposeMapping(['ชื่อบริษัท', 'จังหวัด', 'โทรศัพท์', 'อีเมล'])).toEqual({ name: 0, city: 1, phone: 2, email: 3 })
    expect(proposeMapping(['Název firmy', 'Město', 'PSČ', 'Telefon'])).toEqual({ name: 0, city: 1, postal_code: 2, phone: 3 })
    expect(proposeMapping(['Ragione sociale', 'Comune', 'CAP', 'Sito web'])).toEqual({ name: 0, city: 1, postal_code: 2, website: 3 })
    expect(proposeMapping(['Bedrijfsnaam', 'Plaats', 'Postcode', 'Telefoonnummer'])).toEqual({ name: 0, city: 1, postal_code: 2, phone: 3 })
  })

  it('finds a field named among other words, and maps each column once', () => {
    expect(proposeMapping(['Customer ID', 'Company name (legal)', 'Main phone', 'Notes'])).toEqual({ name: 1, phone: 2 })
    // two columns that could be the name: the first one named so takes it
    expect(proposeMapping(['Name', 'Company', 'City'])).toEqual({ name: 0, city: 2 })
    expect(proposeMapping(['foo', 'bar'])).toEqual({})
  })
})

describe('the delimiter', () => {
  it('is the one found the same number of times on most lines, outside quotes', () => {
    expect(detectDelimiter('a,b,c\n1,2,3\n')).toBe(',')
    expect(detectDelimiter('Name;Ort;Telefon\n"Müller, Bäckerei";Köln;0221 123\n')).toBe(';')
    expect(detectDelimiter('a\tb\n1\t2\n')).toBe('\t')
    expect(detectDelimiter('a|b|c\n1|2|3\n')).toBe('|')
    expect(detectDelimiter('just one column\nvalue\n')).toBe(',')
  })
})

describe('the verdict', () => {
  const cand = (company_id: number, o: Partial<Candidate>): Candidate => ({
    company_id,
    domain_eq: false,
    phone_eq: false,
    city_eq: false,
    name_sim: 0,
    street_eq: false,
    postcode_eq: false,
    ...o,
  })

  it('tells a shared domain apart by the city, and calls a true tie ambiguous', () => {
    const byCity = decide(1, [cand(7, { domain_eq: true, city_eq: true, name_sim: 1 }), cand(8, { domain_eq: true, name_sim: 1 })])
    expect(byCity).toMatchObject({ status: 'matched', company_id: 7, rule: 'domain' })
    const tie = decide(1, [cand(7, { domain_eq: true, name_sim: 1 }), cand(8, { domain_eq: true, name_sim: 1 })])
    expect(tie).toMatchObject({ status: 'ambiguous', company_id: null, candidates: [7, 8] })
  })

  it('matches by name only in the city and above the similarity threshold', () => {
    expect(decide(1, [cand(7, { city_eq: true, name_sim: 0.8 })])).toMatchObject({ status: 'matched', rule: 'name_city' })
    expect(decide(1, [cand(7, { city_eq: true, name_sim: 0.4 })])).toMatchObject({ status: 'unmatched' })
    // an address does not make a name that is not like the company's a match
    expect(decide(1, [cand(7, { city_eq: true, name_sim: 0.4, street_eq: true, postcode_eq: true })])).toMatchObject({
      status: 'unmatched',
    })
    expect(decide(1, [])).toMatchObject({ status: 'unmatched', company_id: null })
  })

  it('tells two similar names of a city apart by the street, or else the postcode', () => {
    const near = [cand(7, { city_eq: true, name_sim: 0.62 }), cand(8, { city_eq: true, name_sim: 0.7 })]
    expect(decide(1, near)).toMatchObject({ status: 'ambiguous', candidates: [8, 7] })
    const byStreet = decide(1, [
      { ...near[0]!, street_eq: true, postcode_eq: true },
      { ...near[1]!, postcode_eq: true },
    ])
    expect(byStreet).toMatchObject({ status: 'matched', company_id: 7, rule: 'name_city' })
    expect(
      decide(1, [cand(7, { city_eq: true, name_sim: 0.66, postcode_eq: true }), cand(8, { city_eq: true, name_sim: 0.68 })]),
    ).toMatchObject({
      status: 'matched',
      company_id: 7,
    })
    // the address counts towards the confidence
    expect(byStreet.confidence).toBeGreaterThan(decide(1, [near[0]!]).confidence!)
  })

  it('prefers the evidence of a phone over a name', () => {
    const m = decide(1, [cand(7, { phone_eq: true }), cand(8, { city_eq: true, name_sim: 1 })])
    expect(m).toMatchObject({ status: 'matched', company_id: 7, rule: 'phone' })
    expect(m.confidence).toBeGreaterThan(0.8)
  })
})
