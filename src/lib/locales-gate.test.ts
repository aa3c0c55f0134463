import { execFileSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { LANGUAGES, NAMESPACES, SERVICE_NAMESPACES } from '@/config/languages'

describe('scripts/check-locales.mjs', () => {
  it('reads the same languages and namespaces as the app', () => {
    const out = execFileSync(process.execPath, ['scripts/check-locales.mjs', '--print-languages'], { encoding: 'utf8' })
    const parsed = JSON.parse(out) as { languages: string[]; namespaces: string[] }
    expect(parsed.languages).toEqual([...LANGUAGES])
    expect(parsed.namespaces).toEqual([...NAMESPACES, ...SERVICE_NAMESPACES])
    expect(parsed.languages).toHaveLength(27)
  })
})
