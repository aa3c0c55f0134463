import { expect } from 'vitest'
import type { RunningService } from '../src/service.ts'
import type { TestService } from './helpers.ts'
import { body, type TestUser } from './account-helpers.ts'

/** Shared by the lists tests (issue 27): uploading a file, waiting for its match, the seeded companies. */

export interface ListAnswer {
  id: number
  name: string
  status: string
  file_type: string
  encoding: string | null
  delimiter: string | null
  headers: string[]
  proposed_mapping: Record<string, number>
  mapping: Record<string, number> | null
  total_rows: number
  matched_rows: number
  preview: Array<{ row_no: number; cells: string[] }>
}

export function upload(
  svc: TestService,
  token: string,
  file: { name: string; bytes: Uint8Array | string; type?: string },
  fields: Record<string, string> = {},
): Promise<Response> {
  const form = new FormData()
  for (const [k, v] of Object.entries(fields)) form.set(k, v)
  form.set('file', new Blob([file.bytes] as ConstructorParameters<typeof Blob>[0], { type: file.type ?? 'text/csv' }), file.name)
  return svc.request('/api/lists/', { method: 'POST', token, body: form })
}

export async function uploaded(svc: TestService, u: TestUser, file: Parameters<typeof upload>[2], fields: Record<string, string> = {}) {
  const res = await upload(svc, u.access, file, fields)
  expect(res.status, await res.clone().text()).toBe(201)
  return body<ListAnswer>(res)
}

export async function confirm(svc: TestService, u: TestUser, id: number, mapping: Record<string, number | null>, defaultCountry?: string) {
  const res = await svc.request(`/api/lists/${id}/mapping/`, {
    method: 'PUT',
    token: u.access,
    json: { mapping, ...(defaultCountry ? { default_country: defaultCountry } : {}) },
  })
  expect(res.status, await res.clone().text()).toBe(202)
  return body<ListAnswer>(res)
}

export async function waitMatched(svc: TestService, u: TestUser, id: number, timeoutMs = 60_000): Promise<ListAnswer> {
  const until = Date.now() + timeoutMs
  for (;;) {
    const list = await body<ListAnswer>(await svc.request(`/api/lists/${id}/`, { token: u.access }))
    if (['matched', 'failed', 'cancelled'].includes(list.status)) return list
    if (Date.now() > until) throw new Error(`list ${id} still ${list.status} (${list.matched_rows}/${list.total_rows})`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

/** A CSV text of rows (RFC 4180 quoting). */
export const csv = (rows: string[][], delimiter = ',') =>
  rows
    .map((r) => r.map((c) => (/["\r\n]/.test(c) || c.includes(delimiter) ? `"${c.replaceAll('"', '""')}"` : c)).join(delimiter))
    .join('\r\n') + '\r\n'

/** A service this test started itself (to restart it on the same database) with the request helper of helpers.ts. */
export function asTestService(service: RunningService): TestService {
  return {
    ...service,
    async request(p, init = {}) {
      const { json, token, headers, ...rest } = init
      const h = new Headers(headers)
      if (json !== undefined) h.set('Content-Type', 'application/json')
      if (token) h.set('Authorization', `Bearer ${token}`)
      const res = await fetch(service.url + p, { ...rest, headers: h, body: json !== undefined ? JSON.stringify(json) : rest.body })
      await service.afterAnswerDone()
      return res
    },
  }
}
