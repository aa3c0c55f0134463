import { cellToLatLng, latLngToCell } from 'h3-js'
import { describe, expect, it } from 'vitest'
import { areasOf, circleOf, circleRing, classBreaks, classOf, distanceKm, legendRanges, ringOf } from './cells'

describe('the map’s colour classes', () => {
  it('splits the counts into classes of about as many cells, and every count falls in one', () => {
    const counts = [1, 1, 2, 3, 5, 8, 13, 21, 34, 2000]
    const breaks = classBreaks(counts)
    expect(breaks).toEqual([1, 2, 5, 13, 34])
    expect(counts.map((c) => classOf(c, breaks))).toEqual([0, 0, 1, 1, 2, 2, 3, 3, 4, 4])
    // the legend covers every count from the smallest to the largest without gaps
    expect(legendRanges(breaks, 2000).map((r) => [r.from, r.to])).toEqual([
      [1, 1],
      [2, 4],
      [5, 12],
      [13, 33],
      [34, 2000],
    ])
  })

  it('has fewer classes when the counts repeat, and none without cells', () => {
    expect(classBreaks([7, 7, 7])).toEqual([7])
    expect(classBreaks([])).toEqual([])
  })
})

describe('the table’s areas', () => {
  const munich = { name: 'München', latitude: 48.137, longitude: 11.575 }
  const augsburg = { name: 'Augsburg', latitude: 48.366, longitude: 10.898 }
  it('groups the cells by the place nearest their centre, adding their counts', () => {
    const cells = [
      { h3: latLngToCell(48.14, 11.58, 7), count: 10, owned: 2 },
      { h3: latLngToCell(48.1, 11.5, 7), count: 5, owned: 0 },
      { h3: latLngToCell(48.37, 10.9, 7), count: 7, owned: 7 },
    ]
    const areas = areasOf(cells, [munich, augsburg])
    expect(areas.map(({ name, count, owned }) => ({ name, count, owned }))).toEqual([
      { name: 'München', count: 15, owned: 2 },
      { name: 'Augsburg', count: 7, owned: 7 },
    ])
  })

  it('finds for each cell the place a full scan finds: the nearest, of places as near the one listed first', () => {
    let state = 7
    const rand = () => (state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31
    const cells = Array.from({ length: 400 }, () => ({ h3: latLngToCell(40 + rand() * 20, -8 + rand() * 35, 5), count: 1, owned: 0 }))
    const places = Array.from({ length: 300 }, (_, i) => ({ name: `p${i}`, latitude: 38 + rand() * 24, longitude: -10 + rand() * 40 }))
    // two places at one spot: the first listed names the cells around it
    places.push({ ...places[5]!, name: 'twin' })
    places.unshift({ ...places[9]!, name: 'first twin' })
    const nearest = (lat: number, lng: number) => {
      let best = places[0]!
      for (const p of places)
        if (
          distanceKm({ lat, lng }, { lat: p.latitude, lng: p.longitude }) <
          distanceKm({ lat, lng }, { lat: best.latitude, lng: best.longitude })
        )
          best = p
      return best.name
    }
    const expected = new Map<string, number>()
    for (const c of cells) {
      const [lat, lng] = cellToLatLng(c.h3)
      const name = nearest(lat, lng)
      expected.set(name, (expected.get(name) ?? 0) + 1)
    }
    const areas = areasOf(cells, places)
    expect(new Map(areas.map((a) => [a.name, a.count]))).toEqual(expected)
    expect(areas.some((a) => a.name === 'twin')).toBe(false)
  })

  it('lists each cell by its centre where no place is known', () => {
    const areas = areasOf([{ h3: latLngToCell(48.14, 11.58, 7), count: 3, owned: 1 }], [])
    expect(areas).toHaveLength(1)
    expect(areas[0]).toMatchObject({ name: null, count: 3, owned: 1 })
    expect(areas[0]!.lat).toBeCloseTo(48.14, 1)
  })
})

describe('a drawn shape as the territory', () => {
  it('keeps a ring at 5 decimals, open, without repeated points', () => {
    expect(
      ringOf([
        [11.123456, 48.1],
        [11.123459, 48.100001],
        [11.7, 48.1],
        [11.7, 48.2],
        [11.123456, 48.1],
      ]),
    ).toEqual([
      [11.12346, 48.1],
      [11.7, 48.1],
      [11.7, 48.2],
    ])
  })

  it('makes a circle the service’s centre and radius, and back to a ring of that radius', () => {
    const ring = circleRing({ lat: 48.137, lng: 11.575, radiusKm: 10 })
    for (const [lng, lat] of ring) expect(distanceKm({ lat: 48.137, lng: 11.575 }, { lat, lng })).toBeCloseTo(10, 3)
    const back = circleOf([...ring, ring[0]!])
    expect(back).toMatchObject({ kind: 'circle', radiusKm: 10 })
    if (back.kind !== 'circle') throw new Error('not a circle')
    expect(back.lat).toBeCloseTo(48.137, 2)
    expect(back.lng).toBeCloseTo(11.575, 2)
    // Terra Draw's own radius wins, and the service's limit of 200 km holds
    expect(circleOf(ring, 12.34)).toMatchObject({ radiusKm: 12.3 })
    expect(circleOf(circleRing({ lat: 48, lng: 11, radiusKm: 300 }))).toMatchObject({ radiusKm: 200 })
  })
})
