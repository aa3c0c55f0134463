import { gunzipSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { JsonText, SharedJsonTail } from '../src/lib/json-answer.ts'

/** A cached preview's answer is gzipped from its own small head and a tail compressed once (issue 13). */
describe('JsonText', () => {
  const tail = new SharedJsonTail(
    `"results":${JSON.stringify([
      { name: 'Café Zürich', city: 'תל אביב', category: 'ร้านอาหาร', email: ['j***@example.com'] },
      ...Array.from({ length: 40 }, (_, i) => ({ name: `Company ${i}`, rating: i / 10 })),
    ])}}`,
  )

  it('gzips to exactly its text, for any head before the same shared tail (CRC and length checked by gunzip)', () => {
    for (const searchId of [1, 42, 2_147_483_647]) {
      const json = new JsonText(`{"totalCount":41,"search_id":${searchId},"page":1,"page_size":50,`, tail)
      const unzipped = gunzipSync(json.gzipped()).toString('utf8')
      expect(unzipped).toBe(json.text)
      expect(JSON.parse(unzipped)).toMatchObject({ search_id: searchId, results: expect.any(Array) })
    }
  })

  it('compresses the shared tail once and keeps it', () => {
    const first = tail.deflated()
    new JsonText('{"a":1,', tail).gzipped()
    expect(tail.deflated()).toBe(first)
    expect(tail.bytes()).toBeGreaterThan(2 * tail.text.length)
  })

  it('without a tail is plain JSON text, gzipped whole', () => {
    const json = new JsonText('{"a":"ü"}')
    expect(json.text).toBe('{"a":"ü"}')
    expect(gunzipSync(json.gzipped()).toString('utf8')).toBe('{"a":"ü"}')
  })
})
