import { randomUUID } from 'node:crypto'
import { readdir, readFile } from 'node:fs/promises'
import path from 'node:path'
import { parse } from 'csv-parse/sync'
import { expect } from 'vitest'
import type { TestService } from './helpers.ts'

/** Helpers of the accounts/exports contract tests (S2). */

export async function body<T = Record<string, unknown>>(res: Response): Promise<T> {
  return (await res.json()) as T
}

export interface TestUser {
  id: number
  email: string
  password: string
  access: string
  refresh: string
}

export const uniqueEmail = (tag = 'user') => `${tag}-${randomUUID().slice(0, 12)}@example.com`

/** A signed-up account whose address is confirmed through the mailed link (as a person would), unless `confirm: false`. */
export async function signUp(svc: TestService, extra: Record<string, unknown> = {}, { confirm = true } = {}): Promise<TestUser> {
  const email = uniqueEmail()
  const password = 'correct horse battery'
  const res = await svc.request('/api/auth/sign-up/', { method: 'POST', json: { email, password, ...extra } })
  expect(res.status).toBe(201)
  const { id } = await body<{ id: number }>(res)
  if (confirm) await confirmFromOutbox(svc, email)
  const tokens = await login(svc, email, password)
  return { id, email, password, ...tokens }
}

/** The newest mail to `email` in the service's outbox. */
export async function newestMail(svc: TestService, email: string): Promise<string> {
  const dir = path.join(svc.deps.config.dataDir, 'outbox')
  const files = (await readdir(dir).catch(() => [] as string[])).filter((f) => f.endsWith(`-${email}.eml`)).sort()
  expect(files.length, `a mail to ${email}`).toBeGreaterThan(0)
  return readFile(path.join(dir, files.at(-1)!), 'utf8')
}

/** The token of the newest confirmation link mailed to `email`. */
export async function confirmationToken(svc: TestService, email: string): Promise<string> {
  const text = await newestMail(svc, email)
  const m = /\/confirm-email\?token=([A-Za-z0-9_-]+)/.exec(text)
  expect(m, `a confirmation link in the mail to ${email}`).not.toBeNull()
  return m![1]!
}

export async function confirmFromOutbox(svc: TestService, email: string) {
  const res = await svc.request('/api/auth/confirm-email/', { method: 'POST', json: { token: await confirmationToken(svc, email) } })
  expect(res.status, await res.clone().text()).toBe(200)
}

export async function login(svc: TestService, username: string, password: string) {
  const res = await svc.request('/api/auth/login/', { method: 'POST', json: { username, password } })
  expect(res.status).toBe(200)
  return body<{ access: string; refresh: string; user: Record<string, unknown> }>(res)
}

export async function grant(
  svc: TestService,
  token: string,
  g: { subscription?: number; purchased?: number; purchased_expires_in_days?: number; plan_type?: string },
) {
  const res = await svc.request('/api/_test/grant-credits/', { method: 'POST', token, json: g })
  expect(res.status).toBe(200)
  return body(res)
}

/** A confirmed account on the Pro plan with `subscription` credits. */
export async function paidUser(svc: TestService, subscription = 5000): Promise<TestUser> {
  const u = await signUp(svc)
  await grant(svc, u.access, { subscription, plan_type: 'Pro' })
  return u
}

/** Subscription plus purchased credits available, as the profile says. */
export async function balance(svc: TestService, token: string): Promise<number> {
  const p = await profile(svc, token)
  return p.remaining_credits + p.purchased_credits_available
}

export async function profile(svc: TestService, token: string) {
  const res = await svc.request('/api/user/profile/', { token })
  expect(res.status).toBe(200)
  return body<{
    remaining_credits: number
    purchased_credits_available: number
    purchased_credits_expiring_soon: number
    total_credits: number
    [k: string]: unknown
  }>(res)
}

/** A preview through the real company route: its search_id is what an export starts from. */
export async function preview(svc: TestService, token: string, query: string): Promise<{ search_id: number; totalCount: number }> {
  const res = await svc.request(`/api/companies/?${query}`, { token })
  expect(res.status).toBe(200)
  return body<{ search_id: number; totalCount: number }>(res)
}

export async function startExport(svc: TestService, token: string, json: Record<string, unknown>) {
  return svc.request('/api/download-csv/', { method: 'POST', token, json })
}

export interface ExportStatus {
  search_id: number
  status: string
  progress: number
  processed_count: number
  lead_count: number
  error: string | null
}

/** Polls the status until the export is COMPLETED or FAILED. */
export async function waitForExport(svc: TestService, token: string, id: number, timeoutMs = 30_000): Promise<ExportStatus> {
  const until = Date.now() + timeoutMs
  for (;;) {
    const res = await svc.request(`/api/download-status/${id}/`, { token })
    expect(res.status).toBe(200)
    const s = await body<ExportStatus>(res)
    if (s.status === 'COMPLETED' || s.status === 'FAILED') return s
    if (Date.now() > until) throw new Error(`export ${id} still ${s.status} after ${timeoutMs} ms`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

/** A CSV file's rows of fields (csv-parse: quotes, doubled quotes, line breaks in fields); a BOM stays in the first field. */
export const parseCsv = (text: string, delimiter = ','): string[][] => parse(text, { delimiter, relax_column_count: true })

export async function advanceClock(svc: TestService, seconds: number) {
  const res = await svc.request('/api/_test/clock/', { method: 'POST', json: { advance_seconds: seconds } })
  expect(res.status).toBe(200)
}

/**
 * POST on a connection of its own (node:http, no keep-alive pool): a server that refuses a huge body
 * early closes that connection, which must not break the pooled connections of the following tests.
 */
export async function postOnOwnConnection(url: string, headers: Record<string, string>, payload: string) {
  const { request } = await import('node:http')
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(url, { method: 'POST', headers, agent: false }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => (text += chunk))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }))
    })
    req.on('error', reject)
    req.end(payload)
  })
}
