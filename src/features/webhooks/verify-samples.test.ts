import { spawn, type ChildProcess } from 'node:child_process'
import { createHmac } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { connect, createServer } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { http, passthrough } from 'msw'
import { afterAll, beforeEach, describe, expect, it } from 'vitest'
import { server } from '@/testing/msw-server'
import { MAX_BODY_BYTES, SAMPLE_PORT, SECRET_VARIABLE, verifySample, type SampleLanguage } from './verify-samples'

/**
 * The samples are programs people paste: each one runs here as written (only its port changed),
 * receives a request signed as the service signs it (server/src/lib/webhooks.ts) and must accept it,
 * and must refuse a changed body, another secret, an old timestamp and a missing header; handle an
 * event delivered twice once; refuse a body over the cap; and listen on 127.0.0.1 only.
 */
const secret = 'whsec_sample-secret-for-the-test'
const sign = (body: string, t: number, key = secret) => `t=${t},v1=${createHmac('sha256', key).update(`${t}.${body}`).digest('hex')}`
const now = () => Math.floor(Date.now() / 1000)

const dir = mkdtempSync(path.join(tmpdir(), 'webhook-samples-'))
const children: ChildProcess[] = []
afterAll(() => {
  for (const c of children) c.kill()
  rmSync(dir, { recursive: true, force: true })
})

// the receivers are real local programs: their requests go through, not to MSW
beforeEach(() => server.use(http.post(/^http:\/\/127\.0\.0\.1:\d+\/hooks$/, () => passthrough())))

async function freePort(): Promise<number> {
  const srv = createServer()
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()))
  const { port } = srv.address() as { port: number }
  await new Promise<void>((r) => srv.close(() => r()))
  return port
}

async function start(language: SampleLanguage): Promise<{ url: string; port: number; output: () => string }> {
  const port = await freePort()
  const source = verifySample(language, 'Leads-Signature').replace(String(SAMPLE_PORT), String(port))
  const file = path.join(dir, language === 'node' ? 'receiver.mjs' : 'receiver.py')
  writeFileSync(file, source)
  const child = spawn(language === 'node' ? process.execPath : 'python3', [file], {
    env: { ...process.env, [SECRET_VARIABLE]: secret },
    stdio: ['ignore', 'pipe', 'ignore'],
  })
  children.push(child)
  let out = ''
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()))
  const url = `http://127.0.0.1:${port}/hooks`
  const until = Date.now() + 10_000
  for (;;) {
    const ok = await fetch(url, { method: 'POST', body: '' }).then(
      () => true,
      () => false,
    )
    if (ok) return { url, port, output: () => out }
    if (child.exitCode !== null) throw new Error(`the ${language} sample exited with ${child.exitCode}`)
    if (Date.now() > until) throw new Error(`the ${language} sample did not start`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

const post = (url: string, body: string, signature?: string) =>
  fetch(url, {
    method: 'POST',
    body,
    headers: { 'Content-Type': 'application/json', ...(signature ? { 'Leads-Signature': signature } : {}) },
  }).then((r) => r.status)

describe.each(['node', 'python'] as const)('the %s verification sample', (language) => {
  it('accepts what the service signs and refuses a changed body, another secret, an old timestamp, no header', async () => {
    const { url, port, output } = await start(language)
    // the raw body, with spacing and key order a re-serialisation would not keep
    const body = '{"id":"evt_1", "type":"webhook.test","created_at":"2026-01-01T00:00:00.000Z","data":{"message":"é ✓"}}'
    const t = now()
    expect(await post(url, body, sign(body, t))).toBe(200)
    expect(await post(url, body.replace('evt_1', 'evt_2'), sign(body, t))).toBe(400)
    expect(await post(url, body, sign(body, t, 'whsec_another'))).toBe(400)
    expect(await post(url, body, sign(body, t - 6 * 60))).toBe(400)
    expect(await post(url, body, sign(body, t - 4 * 60))).toBe(200)
    expect(await post(url, body)).toBe(400)
    expect(await post(url, body, 't=abc,v1=zz')).toBe(400)

    // the same event again (a retry after a lost answer): accepted, handled once
    expect(await post(url, body, sign(body, now()))).toBe(200)
    const until = Date.now() + 5_000
    while (!output().includes('webhook.test evt_1') && Date.now() < until) await new Promise((r) => setTimeout(r, 50))
    expect(output().match(/webhook\.test evt_1\b/g)).toHaveLength(1)
    // a body over the cap is refused, not buffered
    const big = JSON.stringify({ id: 'evt_big', type: 'webhook.test', pad: 'x'.repeat(MAX_BODY_BYTES + 1024) })
    expect(await post(url, big, sign(big, now()))).toBe(413)
    expect(output()).not.toContain('evt_big')
    // only on 127.0.0.1: another loopback address of this machine finds nothing listening
    const elsewhere = await new Promise<string>((resolve) => {
      const s = connect(port, '127.0.0.2', () => {
        s.destroy()
        resolve('connected')
      })
      s.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? 'error'))
    })
    expect(elsewhere).toBe('ECONNREFUSED')
  }, 20_000)
})
