import { describe, expect, it } from 'vitest'
import { csvSafe } from '../src/modules/exports/csv-cell.ts'
import { mulberry32 } from '../src/seed/companies.ts'

describe('csvSafe (CSV formula injection, docs/security.md)', () => {
  it('escapes a cell that starts like a formula, leaves numbers, phone numbers and plain text', () => {
    expect(csvSafe('=HYPERLINK("http://evil.example")')).toBe(`'=HYPERLINK("http://evil.example")`)
    expect(csvSafe('@SUM(1)')).toBe("'@SUM(1)")
    expect(csvSafe('+cmd|x')).toBe("'+cmd|x")
    expect(csvSafe('-2+3+cmd|x')).toBe("'-2+3+cmd|x")
    expect(csvSafe('+49 30 1234-56')).toBe('+49 30 1234-56')
    expect(csvSafe('-(555) 010.99/1')).toBe('-(555) 010.99/1')
    expect(csvSafe('Plain Bakery')).toBe('Plain Bakery')
  })

  it('checks the text after ; and , like the start of a cell', () => {
    expect(csvSafe('Shop;=1+1')).toBe("Shop;'=1+1")
    expect(csvSafe('Shop; "=1+1')).toBe('Shop; "\'=1+1')
    expect(csvSafe('Main St 1, @SUM(1)')).toBe("Main St 1, '@SUM(1)")
    expect(csvSafe('Dam 1; Dam 2')).toBe('Dam 1; Dam 2')
  })

  it('checks the text after CR, LF and tab like the text after ; (issue 22, finding 11)', () => {
    expect(csvSafe('Shop\n=1+1')).toBe("Shop\n'=1+1")
    expect(csvSafe('Shop\r\n=1+1')).toBe("Shop\r\n'=1+1")
    expect(csvSafe('Shop\r@SUM(A1)')).toBe("Shop\r'@SUM(A1)")
    expect(csvSafe('Shop\t+cmd|x')).toBe("Shop\t'+cmd|x")
    expect(csvSafe('Shop\n  "=1+1')).toBe('Shop\n  "\'=1+1')
    // a cell starting with a tab or CR is escaped, and so is what follows it
    expect(csvSafe('\t=1+1')).toBe("'\t'=1+1")
    expect(csvSafe('\r=1+1')).toBe("'\r'=1+1")
    // harmless lines stay as they are, phone numbers too
    expect(csvSafe('Line one\nLine two')).toBe('Line one\nLine two')
    expect(csvSafe('Call\n+31 20 123-4567')).toBe('Call\n+31 20 123-4567')
  })
})

describe('csvSafe on any text', () => {
  // the rule as written above, one segment at a time (csvSafe first looks whether anything is risky)
  const risky = (s: string) => /^[=@\t\r]/.test(s) || (/^[+-]/.test(s) && !/^[+-][\d ()./-]*$/.test(s))
  const byTheRule = (cell: string) =>
    (risky(cell) ? `'${cell}` : cell).replace(/([;,\r\n\t][\s"']*)([^;,\r\n\t]*)/g, (all, lead: string, segment: string) =>
      risky(segment) ? `${lead}'${segment}` : all,
    )
  it('changes what the rule changes, segment by segment, and nothing else', () => {
    const alphabet = ['a', '7', ' ', '\u00a0', '"', "'", ',', ';', '\r', '\n', '\t', '=', '+', '-', '@', '(', '.', '/']
    const rand = mulberry32(24)
    for (let n = 0; n < 20_000; n++) {
      const cell = Array.from({ length: Math.floor(rand() * 10) }, () => alphabet[Math.floor(rand() * alphabet.length)]).join('')
      expect(csvSafe(cell), JSON.stringify(cell)).toBe(byTheRule(cell))
    }
  })
})
