import http from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestService, type TestService } from './helpers.ts'
import { body, grant, preview, signUp, startExport, waitForExport } from './account-helpers.ts'

/** Issue 8: careless clients and hostile headers. */

let svc: TestService
beforeAll(async () => {
  svc = await startTestService()
})
afterAll(async () => {
  await svc?.close()
})

function send(
  agent: http.Agent,
  p: string,
  {
    method = 'GET',
    payload,
    headers = {},
    chunked = false,
  }: { method?: string; payload?: Buffer; headers?: Record<string, string>; chunked?: boolean } = {},
): Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }> {
  const url = new URL(svc.url + p)
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        method,
        agent,
        headers: {
          ...(payload && !chunked ? { 'Content-Length': String(payload.length) } : {}),
          'Content-Type': 'application/json',
          ...headers,
        },
      },
      (res) => {
        let text = ''
        res.setEncoding('utf8')
        res.on('data', (d: string) => (text += d))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }))
      },
    )
    // the server may answer and close before the whole body is sent: that is the point
    req.on('error', (err: NodeJS.ErrnoException) => (err.code === 'EPIPE' || err.code === 'ECONNRESET' ? undefined : reject(err)))
    if (payload && chunked) {
      for (let i = 0; i < payload.length; i += 64 * 1024) req.write(payload.subarray(i, i + 64 * 1024))
      req.end()
    } else req.end(payload)
  })
}

describe('a body over 1 MB', () => {
  it('gets 413 from Content-Length with Connection: close, and the next three requests on the keep-alive agent are all answered', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
    const big = Buffer.alloc(2 * 1024 * 1024, 'a')
    const refused = await send(agent, '/api/auth/login/', { method: 'POST', payload: big })
    expect(refused.status).toBe(413)
    expect(refused.headers.connection).toBe('close')
    expect(JSON.parse(refused.text)).toMatchObject({ code: 'body_too_large' })
    // past @hono/node-server's 500 ms drain timeout, when a kept-alive socket used to be destroyed under the client
    await new Promise((r) => setTimeout(r, 700))
    for (let i = 0; i < 3; i++) expect((await send(agent, '/api/plans/')).status).toBe(200)
    agent.destroy()
  })

  it('sent chunked (no length) is cut off at the limit with 413, never a 500', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
    const refused = await send(agent, '/api/auth/login/', { method: 'POST', payload: Buffer.alloc(3 * 1024 * 1024, 'a'), chunked: true })
    expect(refused.status).toBe(413)
    expect((await send(agent, '/api/plans/')).status).toBe(200)
    agent.destroy()
  })
})

describe('headers', () => {
  it('API answers, errors included, are never cached or sniffed', async () => {
    for (const [p, status] of [
      ['/api/plans/', 200],
      ['/api/user/profile/', 401],
      ['/api/nothing-here/', 404],
    ] as const) {
      const res = await svc.request(p)
      expect(res.status).toBe(status)
      expect(res.headers.get('cache-control')).toBe('no-store')
      expect(res.headers.get('x-content-type-options')).toBe('nosniff')
    }
  })

  it('links come from the configured public address, never from the Host header', async () => {
    const u = await signUp(svc)
    await grant(svc, u.access, { subscription: 1000 })
    const p = await preview(svc, u.access, 'countries=DE')
    for (let i = 0; i < 2; i++) {
      const started = await body<{ search_id: number }>(
        await startExport(svc, u.access, { search_id: p.search_id, export_format: 'csv', max_leads: 2 }),
      )
      expect((await waitForExport(svc, u.access, started.search_id)).status).toBe('COMPLETED')
    }
    const agent = new http.Agent()
    const auth = { Authorization: `Bearer ${u.access}`, Host: 'evil.test' }
    const history = JSON.parse((await send(agent, '/api/user/search-history/?page_size=1', { headers: auth })).text) as { next: string }
    expect(history.next.startsWith(`${svc.deps.config.publicUrl}/api/user/search-history/`)).toBe(true)
    expect(history.next).not.toContain('evil.test')
    const list = JSON.parse((await send(agent, '/api/user/search-history/', { headers: auth })).text) as {
      results: Array<{ search_id: number }>
    }
    const link = JSON.parse((await send(agent, `/api/download-completed-csv/${list.results[0]!.search_id}/`, { headers: auth })).text) as {
      download_url: string
    }
    expect(link.download_url.startsWith(`${svc.deps.config.publicUrl}/api/files/`)).toBe(true)
    expect(svc.deps.config.publicUrl).toBe(svc.url) // unset PUBLIC_URL: the address actually bound
    agent.destroy()
  })

  it('PUBLIC_URL, trailing slash and all, is what links use', async () => {
    const behindProxy = await startTestService({ publicUrl: 'https://leads.example.test', publicUrlConfigured: true })
    try {
      const u = await signUp(behindProxy)
      const res = await behindProxy.request('/api/auth/password-reset/', { method: 'POST', json: { email: u.email } })
      expect(res.status).toBe(202)
      const { readdir, readFile } = await import('node:fs/promises')
      const path = await import('node:path')
      const dir = path.join(behindProxy.deps.config.dataDir, 'outbox')
      const files = (await readdir(dir)).filter((f) => f.endsWith(`-${u.email}.eml`)).sort()
      expect(await readFile(path.join(dir, files.at(-1)!), 'utf8')).toContain('https://leads.example.test/reset-password?token=')
    } finally {
      await behindProxy.close()
    }
    const { loadConfig } = await import('../src/config.ts')
    expect(loadConfig({ PUBLIC_URL: 'https://leads.example.test/', DATA_DIR: svc.deps.config.dataDir }).publicUrl).toBe(
      'https://leads.example.test',
    )
  })
})

describe('strict inputs: a misspelled parameter is refused, never ignored', () => {
  it('on /api/companies/ (and facets): countries[]=US and country=US are 400 naming the parameter, with a suggestion', async () => {
    const u = await signUp(svc)
    for (const [query, key] of [
      ['countries[]=US', 'countries[]'],
      ['country=US', 'country'],
      ['countries=US&emial=true', 'emial'],
    ] as const) {
      for (const p of ['/api/companies/', '/api/companies/facets/']) {
        const res = await svc.request(`${p}?${query}`, { token: u.access })
        expect(res.status, `${p}?${query}`).toBe(400)
        const b = await body<{
          errors: Record<string, string[]>
          error_codes: Record<string, Array<{ code: string; suggestion?: string }>>
        }>(res)
        expect(b.error_codes[key]?.[0]?.code).toBe('unknown_parameter')
        expect(b.errors[key]?.[0]).toContain(`"${key}"`)
      }
    }
    const suggested = await body<{ error_codes: Record<string, Array<{ suggestion?: string }>> }>(
      await svc.request('/api/companies/?countries[]=US', { token: u.access }),
    )
    expect(suggested.error_codes['countries[]']?.[0]?.suggestion).toBe('countries')
    // what the dashboard sends is accepted
    const ok = await svc.request('/api/companies/?countries=DE&email=true&paginate=true&page=2&lang=de&main_activity_only=false', {
      token: u.access,
    })
    expect(ok.status).toBe(200)
  })

  it('on the export and history operations: unknown body fields and query parameters are 400, nothing is charged', async () => {
    const u = await signUp(svc)
    await grant(svc, u.access, { subscription: 500 })
    const p = await preview(svc, u.access, 'countries=DE')
    const before = (await body<{ remaining_credits: number }>(await svc.request('/api/user/profile/', { token: u.access })))
      .remaining_credits
    const bad = await startExport(svc, u.access, { search_id: p.search_id, export_format: 'csv', limit: 5 })
    expect(bad.status).toBe(400)
    expect(await body(bad)).toMatchObject({ error_codes: { limit: [{ code: 'unknown_parameter', suggestion: 'max_leads' }] } })
    expect(
      (await body<{ remaining_credits: number }>(await svc.request('/api/user/profile/', { token: u.access }))).remaining_credits,
    ).toBe(before)
    const list = await svc.request('/api/user/search-history/?pge=2', { token: u.access })
    expect(list.status).toBe(400)
    expect(await body(list)).toMatchObject({ error_codes: { pge: [{ code: 'unknown_parameter', suggestion: 'page' }] } })
    expect((await svc.request('/api/user/search-history/?page=1&page_size=5', { token: u.access })).status).toBe(200)
    const started = await body<{ search_id: number }>(
      await startExport(svc, u.access, { search_id: p.search_id, export_format: 'csv', max_leads: 2 }),
    )
    await waitForExport(svc, u.access, started.search_id)
    const delta = await svc.request(`/api/user/search-history/${started.search_id}/download-delta/`, {
      method: 'POST',
      token: u.access,
      json: { dryrun: true },
    })
    expect(delta.status).toBe(400)
    expect(await body(delta)).toMatchObject({ error_codes: { dryrun: [{ code: 'unknown_parameter' }] } })
  })
})

describe('preview ids', () => {
  const sequence = async () =>
    Number((await svc.deps.db.query<{ last_value: string }>('SELECT last_value FROM searches_id_seq')).rows[0]!.last_value)

  it('identical previews reuse one id and take nothing from the sequence; another filter set or account gets its own', async () => {
    const a = await signUp(svc)
    const b = await signUp(svc)
    const first = await preview(svc, a.access, 'countries=FR&email=true')
    const before = await sequence()
    const ids = new Set<number>()
    for (let i = 0; i < 20; i++) ids.add((await preview(svc, a.access, 'countries=FR&email=true')).search_id)
    // concurrently too
    for (const p of await Promise.all(Array.from({ length: 5 }, () => preview(svc, a.access, 'email=true&countries=FR'))))
      ids.add(p.search_id)
    expect([...ids]).toEqual([first.search_id])
    expect(await sequence()).toBe(before)
    const other = await preview(svc, a.access, 'countries=FR&phone_number=true')
    expect(other.search_id).not.toBe(first.search_id)
    const otherAccount = await preview(svc, b.access, 'countries=FR&email=true')
    expect(otherAccount.search_id).not.toBe(first.search_id)
    // the reused id still exports for its owner, and stays invisible to the other account
    await grant(svc, a.access, { subscription: 100 })
    expect((await startExport(svc, a.access, { search_id: first.search_id, export_format: 'csv', max_leads: 1 })).status).toBe(202)
    await grant(svc, b.access, { subscription: 100 })
    expect((await startExport(svc, b.access, { search_id: first.search_id, export_format: 'csv', max_leads: 1 })).status).toBe(404)
  })
})
