import { render } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import { foldedMatch, Highlight } from './highlight'

/** What the option shows: the text, with the marked part in [brackets]. */
function shown(text: string, query: string) {
  const { container } = render(<Highlight text={text} query={query} />)
  const mark = container.querySelector('mark')
  expect(container.textContent, 'every character of the text is shown as it is').toBe(text)
  if (!mark) return text
  const before = text.slice(0, text.indexOf(mark.textContent!))
  return `${before}[${mark.textContent}]${text.slice(before.length + mark.textContent!.length)}`
}

describe('Highlight', () => {
  it('marks "Mü" in "München" when "mu" is typed, and "mü" or "MU" alike', () => {
    expect(shown('München', 'mu')).toBe('[Mü]nchen')
    expect(shown('München', 'MÜ')).toBe('[Mü]nchen')
    expect(shown('Landkreis München', 'munch')).toBe('Landkreis [Münch]en')
    expect(shown('Łódź', 'lodz')).toBe('[Łódź]')
    // the service lists Dortmund for "Mü" because it holds "mu": the option shows why
    expect(shown('Dortmund', 'Mü')).toBe('Dort[mu]nd')
  })

  it('a typed "ss" marks the "ß" it stands for, and a match ending inside "ß" takes all of it', () => {
    expect(shown('Großbeeren', 'grossb')).toBe('[Großb]eeren')
    expect(shown('Straße', 'stras')).toBe('[Straß]e')
    expect(shown('Straße', 'ße')).toBe('Stra[ße]')
    expect(shown('Gießen', 'giessen')).toBe('[Gießen]')
  })

  it('matches precomposed and decomposed letters either way, keeping the text’s own characters', () => {
    const decomposed = 'Mu\u0308nchen'
    expect(shown(decomposed, 'mü')).toBe('[Mu\u0308]nchen')
    expect(shown('München', 'Mu\u0308')).toBe('[Mü]nchen')
    // the combining mark after a matched letter stays with it
    expect(foldedMatch(decomposed, 'mu')).toEqual([0, 3])
  })

  it('case aside in other scripts: Greek (final sigma too) and Cyrillic', () => {
    expect(shown('ΟΔΟΣ ΠΑΝΕΠΙΣΤΗΜΙΟΥ', 'οδος')).toBe('[ΟΔΟΣ] ΠΑΝΕΠΙΣΤΗΜΙΟΥ')
    expect(shown('Пловдив', 'пЛОВ')).toBe('[Плов]див')
  })

  it('leaves the text unmarked when nothing matches or nothing is typed', () => {
    expect(shown('Dortmund', 'köln')).toBe('Dortmund')
    expect(shown('Dortmund', '  ')).toBe('Dortmund')
    expect(foldedMatch('Dortmund', '\u0308')).toBeNull()
  })
})
