import { randomUUID } from 'node:crypto'
import { createConfig, lintFromString } from '@redocly/openapi-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestService, type TestService } from './helpers.ts'
import { body, signUp, type TestUser } from './account-helpers.ts'

/** Issue 23: the document at /api/schema/ lints clean with Redocly's recommended rules, and its security is true. */

const SERVICE_TOKEN = 'openapi-test-service-token'
let svc: TestService
let user: TestUser
let apiKey: string
beforeAll(async () => {
  svc = await startTestService({ pageSnapshotToken: SERVICE_TOKEN })
  user = await signUp(svc)
  const res = await svc.request('/api/user/api-keys/', { method: 'POST', token: user.access, json: {} })
  expect(res.status).toBe(201)
  apiKey = (await body<{ token: string }>(res)).token
})
afterAll(async () => {
  await svc?.close()
})

interface Parameter {
  name: string
  in: string
  schema?: { example?: unknown }
}
interface Operation {
  operationId?: string
  security?: Record<string, string[]>[]
  parameters?: Parameter[]
}
interface Document {
  paths: Record<string, Record<string, Operation>>
}

const schemaText = async () => {
  const res = await svc.request('/api/schema/')
  expect(res.status).toBe(200)
  return res.text()
}

async function lint(source: string) {
  const config = await createConfig({
    extends: ['recommended'],
    // the service is published under no licence: naming one in `info` would be untrue
    rules: { 'info-license': 'off' },
  })
  const problems = await lintFromString({ source, absoluteRef: `${svc.url}/api/schema/`, config })
  return problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} (${p.location[0]?.pointer ?? ''})`)
}

describe('the OpenAPI document', () => {
  it("has neither errors nor warnings under Redocly's recommended rules", async () => {
    expect(await lint(await schemaText())).toEqual([])
  })

  it('is linted for real: a name, a security and the servers taken out are reported', async () => {
    const doc = JSON.parse(await schemaText()) as Document & { servers?: unknown }
    const operation = doc.paths['/api/plans']!.get!
    delete operation.operationId
    delete operation.security
    delete doc.servers
    const problems = await lint(JSON.stringify(doc))
    for (const rule of ['operation-operationId', 'security-defined', 'no-empty-servers']) {
      expect(
        problems.some((p) => p.includes(` ${rule}: `)),
        `${rule} in ${problems.join('\n')}`,
      ).toBe(true)
    }
  })
})

/** Path parameters without an example in the document: values of the right shape, of nothing that exists. */
const PATH_VALUES: Record<string, string> = { key_id: randomUUID(), id: 'wh_000000000000' }

/** Bodies valid enough to reach the handler, where these operations refuse an API key. */
const BODIES: Record<string, unknown> = {
  'POST /api/user/password': { current_password: 'not the password', new_password: 'another long password' },
  'POST /api/user/webhooks': { url: 'http://127.0.0.1/hook' },
}

/** A key may revoke only itself: with the id of another key (the plausible value above) it is refused, rightly. */
const REFUSES_OTHER_KEYS = new Set(['DELETE /api/user/api-keys/{key_id}'])

describe("the document's security", () => {
  let operations: { key: string; url: string; method: string; security: Record<string, string[]>[] }[]
  beforeAll(async () => {
    const doc = JSON.parse(await schemaText()) as Document
    operations = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, operation]) => {
        const url = path.replaceAll(/{(\w+)}/g, (_, name: string) => {
          const param = operation.parameters?.find((p) => p.in === 'path' && p.name === name)
          const value = param?.schema?.example ?? PATH_VALUES[name]
          if (value === undefined) throw new Error(`No value for the path parameter ${name} of ${path}: add one to PATH_VALUES.`)
          return encodeURIComponent(String(value))
        })
        return { key: `${method.toUpperCase()} ${path}`, url, method: method.toUpperCase(), security: operation.security! }
      }),
    )
  })

  /** The answer's status and error code (each body read: the connection is then free for the next request). */
  async function send(op: (typeof operations)[number], headers: Record<string, string> = {}) {
    const res = await svc.request(op.url, { method: op.method, headers, json: BODIES[op.key] })
    const text = await res.text()
    const code = res.headers.get('content-type')?.includes('json') ? (JSON.parse(text) as { code?: string }).code : undefined
    return { status: res.status, code }
  }

  const schemes = (op: (typeof operations)[number]) => op.security.flatMap((requirement) => Object.keys(requirement))

  it('is stated on every operation, and covers them all', () => {
    expect(operations.length).toBeGreaterThan(40)
    expect(operations.filter((op) => !Array.isArray(op.security)).map((op) => op.key)).toEqual([])
    // the document lists the schemes the service has, and some of each kind of operation
    expect(new Set(operations.flatMap(schemes))).toEqual(new Set(['bearer', 'token', 'serviceToken']))
    expect(operations.filter((op) => op.security.length === 0).length).toBeGreaterThanOrEqual(10)
    expect(operations.filter((op) => schemes(op).includes('token')).length).toBeGreaterThan(25)
    expect(operations.filter((op) => schemes(op).join() === 'bearer').length).toBeGreaterThanOrEqual(5)
  })

  it('answers 401 without a credential exactly where the document asks for one', async () => {
    const wrong: string[] = []
    for (const op of operations) {
      const { status } = await send(op)
      if ((status === 401) !== op.security.length > 0) wrong.push(`${op.key}: ${status} for security ${JSON.stringify(op.security)}`)
    }
    expect(wrong).toEqual([])
  })

  it('takes every credential the document names', async () => {
    const credentials: Record<string, Record<string, string>[]> = {
      bearer: [{ Authorization: `Bearer ${user.access}` }],
      // an API key as `Token <key>`, and as a bearer token wherever the document says it takes one
      token: [{ Authorization: `Token ${apiKey}` }, { Authorization: `Bearer ${apiKey}` }],
      serviceToken: [{ 'X-Service-Token': SERVICE_TOKEN }],
    }
    const wrong: string[] = []
    let checked = 0
    for (const op of operations) {
      for (const headers of schemes(op).flatMap((scheme) => credentials[scheme] ?? [])) {
        const { status, code } = await send(op, headers)
        checked += 1
        const refusedAsKey = code === 'api_key_not_allowed' && !REFUSES_OTHER_KEYS.has(op.key)
        if (status === 401 || refusedAsKey) wrong.push(`${op.key} with ${Object.values(headers).join()}: ${status} ${code}`)
      }
    }
    expect(wrong).toEqual([])
    expect(checked).toBeGreaterThan(60)
  })

  it('refuses an API key where it names the access token alone', async () => {
    const passwordOnly = operations.filter((op) => schemes(op).join() === 'bearer')
    const wrong: string[] = []
    for (const op of passwordOnly) {
      for (const authorization of [`Token ${apiKey}`, `Bearer ${apiKey}`]) {
        const { status, code } = await send(op, { Authorization: authorization })
        if (status !== 403 || code !== 'api_key_not_allowed') wrong.push(`${op.key} with ${authorization}: ${status} ${code}`)
      }
    }
    expect(wrong).toEqual([])
    expect(passwordOnly.length).toBeGreaterThanOrEqual(5)
  })
})
