import { describe, expect, it } from 'vitest'
import { LANGUAGES } from '@/config/languages'
import { parseWholeNumber } from './parse-number'

const ok = (value: number) => ({ ok: true, value })
const no = (reason: string) => ({ ok: false, reason })

describe('parseWholeNumber in each of the 27 languages', () => {
  // what the language itself writes (Intl), and what a person types with a plain keyboard
  it.each(LANGUAGES)('%s: reads the language’s own grouping and refuses its decimals', (lng) => {
    const format = new Intl.NumberFormat(lng, { useGrouping: true })
    expect(parseWholeNumber(format.format(1234567), lng)).toEqual(ok(1234567))
    expect(parseWholeNumber(format.format(1000), lng)).toEqual(ok(1000))
    expect(parseWholeNumber(new Intl.NumberFormat(lng).format(25), lng)).toEqual(ok(25))
    expect(parseWholeNumber('1234567', lng)).toEqual(ok(1234567))
    // spaces of every width group in every language
    for (const space of [' ', '\u00a0', '\u202f']) expect(parseWholeNumber(`1${space}000`, lng)).toEqual(ok(1000))
    expect(parseWholeNumber("1'000", lng)).toEqual(ok(1000))
    // the language's own decimal: a decimal, refused in a whole-number field
    expect(parseWholeNumber(format.format(2.5), lng)).toEqual(no('decimal'))
    expect(parseWholeNumber(format.format(1234.5), lng)).toEqual(no('decimal'))
    // a negative number in the language's own writing (U+2212 and bidi marks included)
    expect(parseWholeNumber(format.format(-5), lng)).toEqual(no('tooSmall'))
    expect(parseWholeNumber(format.format(0), lng)).toEqual(no('tooSmall'))
  })
})

describe('parseWholeNumber: the cases of issue 21', () => {
  it('English: 1,000 is a thousand; 1.000 and 2.5 are decimals, refused', () => {
    expect(parseWholeNumber('1,000', 'en')).toEqual(ok(1000))
    expect(parseWholeNumber('1,000,000', 'en')).toEqual(ok(1_000_000))
    expect(parseWholeNumber('1.000', 'en')).toEqual(no('decimal'))
    expect(parseWholeNumber('2.5', 'en')).toEqual(no('decimal'))
    expect(parseWholeNumber('1000.00', 'en')).toEqual(no('decimal'))
  })

  it('German: 1.000 is a thousand; 1,5 and 1,0 are decimals, refused; 2.5 is misgrouped', () => {
    expect(parseWholeNumber('1.000', 'de')).toEqual(ok(1000))
    expect(parseWholeNumber('1.000.000', 'de')).toEqual(ok(1_000_000))
    expect(parseWholeNumber('1 000', 'de')).toEqual(ok(1000))
    expect(parseWholeNumber('1,5', 'de')).toEqual(no('decimal'))
    expect(parseWholeNumber('1,0', 'de')).toEqual(no('decimal'))
    expect(parseWholeNumber('1,000', 'de')).toEqual(no('decimal'))
    expect(parseWholeNumber('2.5', 'de')).toEqual(no('grouping'))
  })

  it('Polish and French: spaces (and a dot) group, the comma is a decimal', () => {
    expect(parseWholeNumber('1 000', 'pl')).toEqual(ok(1000))
    expect(parseWholeNumber('1\u00a0000', 'pl')).toEqual(ok(1000))
    expect(parseWholeNumber('1.000', 'pl')).toEqual(ok(1000))
    expect(parseWholeNumber('1,000', 'pl')).toEqual(no('decimal'))
    expect(parseWholeNumber('1\u202f000', 'fr')).toEqual(ok(1000))
    expect(parseWholeNumber('2,5', 'fr')).toEqual(no('decimal'))
  })

  it('refuses what is not a whole number above 0', () => {
    expect(parseWholeNumber('abc', 'en')).toEqual(no('notANumber'))
    expect(parseWholeNumber('12abc', 'en')).toEqual(no('notANumber'))
    expect(parseWholeNumber('1e3', 'en')).toEqual(no('notANumber'))
    expect(parseWholeNumber('1..000', 'en')).toEqual(no('notANumber'))
    expect(parseWholeNumber('1,', 'en')).toEqual(no('notANumber'))
    expect(parseWholeNumber('0', 'en')).toEqual(no('tooSmall'))
    expect(parseWholeNumber('-5', 'en')).toEqual(no('tooSmall'))
    expect(parseWholeNumber('\u22125', 'sv')).toEqual(no('tooSmall'))
    expect(parseWholeNumber('1,0', 'en')).toEqual(no('grouping'))
    expect(parseWholeNumber('10,00', 'en')).toEqual(no('grouping'))
    expect(parseWholeNumber('1000,000', 'en')).toEqual(no('grouping'))
    expect(parseWholeNumber('1.000 000', 'pl')).toEqual(no('grouping'))
    expect(parseWholeNumber('', 'en')).toEqual(no('empty'))
    expect(parseWholeNumber('   ', 'en')).toEqual(no('empty'))
  })

  it('keeps to the limits it is given', () => {
    expect(parseWholeNumber('2,147,483,647', 'en', { max: 2_147_483_647 })).toEqual(ok(2_147_483_647))
    expect(parseWholeNumber('2,147,483,648', 'en', { max: 2_147_483_647 })).toEqual(no('tooLarge'))
    expect(parseWholeNumber('99999999999999999999', 'en')).toEqual(no('tooLarge'))
    expect(parseWholeNumber('0', 'en', { min: 0 })).toEqual(ok(0))
  })

  it('reads the digits of other numbering systems and ignores surrounding spaces and bidi marks', () => {
    expect(parseWholeNumber(' 1,000 ', 'en')).toEqual(ok(1000))
    expect(parseWholeNumber('\u200e1,000', 'he')).toEqual(ok(1000))
    expect(parseWholeNumber('١٬٠٠٠', 'en')).toEqual(ok(1000))
    expect(parseWholeNumber(new Intl.NumberFormat('th-u-nu-thai').format(1234567), 'th')).toEqual(ok(1234567))
    expect(parseWholeNumber('+12', 'en')).toEqual(ok(12))
  })
})
