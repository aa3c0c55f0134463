import { describe, expect, it } from 'vitest'
import { LANGUAGES } from '@/config/languages'
import { compareNames, formatRelative, languagesByOwnName, listParts, ownLanguageName } from './format'

const now = Date.UTC(2026, 10, 23, 12, 0, 0)
const at = (seconds: number) => now + seconds * 1000
const HOUR = 3_600
const DAY = 86_400

describe('formatRelative', () => {
  it('rounds to the nearest value of the unit instead of cutting it off', () => {
    // a 3-day link looked at a few seconds after the export
    expect(formatRelative('en', at(3 * DAY - 5), now)).toBe('in 3 days')
    expect(formatRelative('en', at(2.99 * DAY), now)).toBe('in 3 days')
    expect(formatRelative('en', at(2.4 * DAY), now)).toBe('in 2 days')
    expect(formatRelative('en', at(2.6 * HOUR), now)).toBe('in 3 hours')
    expect(formatRelative('en', at(-90 * 60), now)).toBe('2 hours ago')
  })

  it('keeps the usual phrases', () => {
    expect(formatRelative('en', at(-HOUR), now)).toBe('1 hour ago')
    expect(formatRelative('en', at(-65 * 60), now)).toBe('1 hour ago')
    expect(formatRelative('en', at(DAY), now)).toBe('tomorrow')
    expect(formatRelative('en', at(-DAY), now)).toBe('yesterday')
    expect(formatRelative('en', at(-30), now)).toBe('30 seconds ago')
    expect(formatRelative('en', at(0), now)).toBe('now')
    expect(formatRelative('en', at(5 * 60), now)).toBe('in 5 minutes')
    expect(formatRelative('en', at(14 * DAY), now)).toBe('in 2 weeks')
  })

  it('moves up a unit when rounding reaches it, never "in 60 minutes" or "in 24 hours"', () => {
    expect(formatRelative('en', at(59 * 60 + 40), now)).toBe('in 1 hour')
    expect(formatRelative('en', at(59.6), now)).toBe('in 1 minute')
    expect(formatRelative('en', at(23.7 * HOUR), now)).toBe('tomorrow')
    expect(formatRelative('en', at(-23.2 * HOUR), now)).toBe('23 hours ago')
  })

  it('speaks the active language', () => {
    expect(formatRelative('de', at(2.99 * DAY), now)).toBe('in 3 Tagen')
  })
})

describe('ownLanguageName', () => {
  it('is what Intl names each language in itself, first letter upper-cased', () => {
    for (const code of LANGUAGES) {
      const name = new Intl.DisplayNames([code], { type: 'language' }).of(code)!
      expect(ownLanguageName(code), code).toBe(name.charAt(0).toLocaleUpperCase(code) + name.slice(1))
    }
  })

  it('names a language in itself, first letter upper-cased by its own rules', () => {
    expect(ownLanguageName('cs')).toBe('Čeština')
    expect(ownLanguageName('de')).toBe('Deutsch')
    expect(ownLanguageName('fr')).toBe('Français')
    expect(ownLanguageName('tr')).toBe('Türkçe')
    expect(ownLanguageName('he')).toBe('עברית')
    expect(ownLanguageName('th')).toBe('ไทย')
  })
})

describe('languagesByOwnName', () => {
  it('lists every language once, in the order an English collator sorts their own names', () => {
    const listed = languagesByOwnName()
    expect(listed.map((l) => l.code).sort()).toEqual([...LANGUAGES].sort())
    const collator = new Intl.Collator('en')
    const sorted = LANGUAGES.map((code) => ({ code, name: ownLanguageName(code) })).sort((a, b) => collator.compare(a.name, b.name))
    expect(listed).toEqual(sorted)
  })
})

describe('compareNames', () => {
  it("sorts by the language's own rules", () => {
    expect(['Zürich', 'Österreich', 'Ohio'].sort(compareNames('de'))).toEqual(['Ohio', 'Österreich', 'Zürich'])
    expect(['Zürich', 'Österreich', 'Ohio'].sort(compareNames('sv'))).toEqual(['Ohio', 'Zürich', 'Österreich'])
  })
})

describe('listParts', () => {
  const text = (lng: string, items: string[]) =>
    listParts(lng, items)
      .map((p) => p.value)
      .join('')

  it('keeps multi-word names apart in Thai, whose list separator is a bare space', () => {
    // Intl alone gives "Chiang Mai Bang Rak และPhra Nakhon": where does one place end?
    expect(text('th', ['Chiang Mai', 'Bang Rak'])).toBe('Chiang Mai และ Bang Rak')
    expect(text('th', ['Chiang Mai', 'Bang Rak', 'Phra Nakhon'])).toBe('Chiang Mai, Bang Rak และ Phra Nakhon')
    expect(
      listParts('th', ['Chiang Mai', 'Bang Rak'])
        .filter((p) => p.type === 'element')
        .map((p) => p.value),
    ).toEqual(['Chiang Mai', 'Bang Rak'])
  })

  it('attaches the Hebrew "ו" to the name it precedes, with a hyphen before a Latin name', () => {
    // the Thai rule gave "בית קפה ו מאפייה"
    expect(text('he', ['בית קפה', 'מאפייה'])).toBe('בית קפה ומאפייה')
    expect(text('he', ['מסעדה', 'בית קפה', 'מאפייה'])).toBe('מסעדה, בית קפה ומאפייה')
    expect(text('he', ['Bayern', 'München'])).toBe('Bayern ו-München')
    expect(
      listParts('he', ['בית קפה', 'מאפייה'])
        .filter((p) => p.type === 'element')
        .map((p) => p.value),
    ).toEqual(['בית קפה', 'מאפייה'])
  })

  it('leaves the lists of other languages as Intl writes them', () => {
    for (const lng of LANGUAGES.filter((l) => l !== 'th')) {
      for (const items of [
        ['Chiang Mai', 'Bang Rak', 'Phra Nakhon'],
        ['בית קפה', 'מאפייה'],
      ]) {
        expect(text(lng, items), lng).toBe(new Intl.ListFormat(lng, { style: 'long', type: 'conjunction' }).format(items))
      }
    }
  })
})
