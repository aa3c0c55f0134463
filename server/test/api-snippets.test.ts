import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  apiRequests,
  curlSnippet,
  javascriptSnippet,
  pythonSnippet,
  requestUrl,
  type ApiRequest,
  type SnippetInput,
} from '../../src/features/search/api-snippets.ts'
import { body, grant, signUp, type TestUser } from './account-helpers.ts'
import { startTestService, type TestService } from './helpers.ts'

// The dashboard's "Use in the API" snippets (src/features/search/api-snippets.ts) against the service's own
// OpenAPI document and against the service itself: a snippet cannot drift from what the service takes.

type Json = Record<string, unknown>
let svc: TestService
let user: TestUser
let apiKey: string
let schema: { paths: Record<string, Record<string, Json>>; components?: { schemas?: Record<string, Json> } }
let input: SnippetInput

beforeAll(async () => {
  svc = await startTestService()
  user = await signUp(svc)
  await grant(svc, user.access, { subscription: 5000 })
  const created = await svc.request('/api/user/api-keys/', { method: 'POST', token: user.access, json: {} })
  apiKey = (await body<{ token: string }>(created)).token
  schema = await body(await svc.request('/api/schema/'))
  const [category] = await body<{ id: number }[]>(await svc.request('/api/categories/?q=a&limit=1', { token: user.access }))
  const level1 = await body<{ id: number }[]>(await svc.request('/api/locations/level1/?country=DE', { token: user.access }))
  input = {
    baseUrl: svc.url,
    query: {
      countries: ['DE'],
      category: [String(category!.id)],
      level1_location: level1.slice(0, 2).map((l) => String(l.id)),
      level2_location: [],
      level3_location: [],
      email: true,
      phone_number: undefined,
      website: true,
      main_activity_only: undefined,
    },
    format: 'excel',
    cap: 3,
  }
})
afterAll(() => svc?.close())

/** The operation of the OpenAPI document that serves `r` (paths are declared without the trailing slash). */
function operation(r: ApiRequest): Json {
  const wanted = r.path.replace(/\/$/, '')
  const key = Object.keys(schema.paths).find((p) => p.replace(/\/$/, '') === wanted)
  expect(key, `${r.path} is in /api/schema/`).toBeDefined()
  const op = schema.paths[key!]![r.method.toLowerCase()]
  expect(op, `${r.method} ${r.path} is in /api/schema/`).toBeDefined()
  return op!
}

function resolve(s: Json): Json {
  const ref = s.$ref
  if (typeof ref !== 'string') return s
  return schema.components!.schemas![ref.split('/').pop()!]!
}

describe('"Use in the API" snippets', () => {
  it('ask only for paths, methods, query parameters and body fields that /api/schema/ declares', () => {
    for (const r of apiRequests(input)) {
      const op = operation(r)
      const declared = ((op.parameters ?? []) as { in: string; name: string }[]).filter((p) => p.in === 'query').map((p) => p.name)
      for (const [name] of r.query) expect(declared, `${r.path} takes ?${name}`).toContain(name)
      if (r.body) {
        const content = (op.requestBody as { content: Record<string, { schema: Json }> }).content['application/json']!
        const props = Object.keys((resolve(content.schema).properties ?? {}) as Json)
        for (const field of Object.keys(r.body)) expect(props, `${r.path} takes "${field}"`).toContain(field)
      }
    }
  })

  it('are the requests the snippets show', () => {
    const [count, start] = apiRequests(input)
    const curl = curlSnippet(input)
    expect(curl).toContain(`'${requestUrl(svc.url, count!)}'`)
    expect(curl).toContain(`"export_format":"excel","max_leads":3`)
    expect(javascriptSnippet(input)).toContain(JSON.stringify(requestUrl(svc.url, count!)))
    expect(javascriptSnippet(input)).toContain(`max_leads: 3`)
    const python = pythonSnippet(input)
    for (const [k, v] of count!.query) expect(python).toContain(`(${JSON.stringify(k)}, ${JSON.stringify(v)})`)
    expect(python).toContain(`"${svc.url}${start!.path}"`)
  })

  it('work against the service with an API key: count, export, status, download link', async () => {
    const [count, start, status, download] = apiRequests(input)
    const auth = { Authorization: `Token ${apiKey}` }
    const preview = await body<{ totalCount: number; search_id: number }>(await fetch(requestUrl(svc.url, count!), { headers: auth }))
    expect(preview.totalCount).toBeGreaterThan(0)
    const res = await fetch(requestUrl(svc.url, start!), {
      method: 'POST',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ ...start!.body, search_id: preview.search_id }),
    })
    expect(res.status).toBe(202)
    const started = await body<{ search_id: number; lead_count: number }>(res)
    expect(started.lead_count).toBe(Math.min(3, preview.totalCount))
    const id = String(started.search_id)
    let state = ''
    for (let i = 0; i < 100 && state !== 'COMPLETED'; i++) {
      state = (await body<{ status: string }>(await fetch(requestUrl(svc.url, status!, id), { headers: auth }))).status
      if (state !== 'COMPLETED') await new Promise((r) => setTimeout(r, 100))
    }
    expect(state).toBe('COMPLETED')
    const link = await body<{ download_url: string; filename: string }>(await fetch(requestUrl(svc.url, download!, id), { headers: auth }))
    expect(link.filename).toMatch(/\.xlsx$/)
    expect((await fetch(new URL(link.download_url, svc.url))).status).toBe(200)
  })
})
