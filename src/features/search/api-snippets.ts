/**
 * The current search as code: the exact requests a program sends for it (count, export, status,
 * download link), as data first, then rendered as curl, JavaScript (fetch) and Python (requests).
 * The requests are checked against the service's OpenAPI document (server/test/api-snippets.test.ts),
 * so a snippet cannot ask for a path or parameter the service does not take.
 */
// No imports: the service's contract test loads this file too (server/test/api-snippets.test.ts).

/** The query of GET /api/companies/ (`previewQuery(filters)` in filters.ts). */
export type CountQuery = Record<string, readonly string[] | string | boolean | undefined>

export interface SnippetInput {
  /** Origin of the service, e.g. https://leads.example.com (no trailing slash). */
  baseUrl: string
  query: CountQuery
  format: 'csv' | 'excel'
  cap: number | null
}

export interface ApiRequest {
  step: 'count' | 'export' | 'status' | 'download'
  method: 'GET' | 'POST'
  /** With `{search_id}` where the id of an earlier step goes. */
  path: string
  query: [string, string][]
  body?: Record<string, string | number>
}

export const KEY_VARIABLE = 'LEADS_API_KEY'

/** The query pairs of the count, in the order the dashboard sends them. */
function queryPairs(q: CountQuery): [string, string][] {
  const pairs: [string, string][] = []
  for (const [name, value] of Object.entries(q)) {
    if (value === undefined || value === false) continue
    if (Array.isArray(value)) for (const v of value) pairs.push([name, String(v)])
    else pairs.push([name, String(value)])
  }
  return pairs
}

export function apiRequests({ query, format, cap }: SnippetInput): ApiRequest[] {
  const body: Record<string, string | number> = { search_id: '{search_id}', export_format: format }
  if (cap !== null) body.max_leads = cap
  return [
    { step: 'count', method: 'GET', path: '/api/companies/', query: queryPairs(query) },
    { step: 'export', method: 'POST', path: '/api/download-csv/', query: [], body },
    { step: 'status', method: 'GET', path: '/api/download-status/{search_id}/', query: [] },
    { step: 'download', method: 'GET', path: '/api/download-completed-csv/{search_id}/', query: [] },
  ]
}

const encodeQuery = (pairs: [string, string][]) => pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&')

export function requestUrl(baseUrl: string, r: ApiRequest, searchId = '{search_id}'): string {
  const qs = encodeQuery(r.query)
  return `${baseUrl}${r.path.replace('{search_id}', searchId)}${qs ? `?${qs}` : ''}`
}

/** A POSIX shell single-quoted word. */
const sh = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`

export function curlSnippet(input: SnippetInput): string {
  const [count, start, status, download] = apiRequests(input)
  const auth = `-H "Authorization: Token $${KEY_VARIABLE}"`
  const body = JSON.stringify({ ...start!.body, search_id: 0 }).replace('"search_id":0', '"search_id":SEARCH_ID')
  return [
    `# export ${KEY_VARIABLE}=<your API key>`,
    '# 1. Count the matching leads (free): note "search_id" and "totalCount"',
    `curl -sS ${auth} ${sh(requestUrl(input.baseUrl, count!))}`,
    '# 2. Export them (1 credit per lead): put the search_id of step 1 in place of SEARCH_ID',
    `curl -sS -X POST ${auth} -H "Content-Type: application/json" \\`,
    `  -d ${sh(body)} ${sh(requestUrl(input.baseUrl, start!))}`,
    '# 3. Repeat until "status" is "COMPLETED": EXPORT_ID is the search_id answered by step 2',
    `curl -sS ${auth} ${sh(requestUrl(input.baseUrl, status!, 'EXPORT_ID'))}`,
    '# 4. The signed download link ("download_url"), valid until "expires_at"',
    `curl -sS ${auth} ${sh(requestUrl(input.baseUrl, download!, 'EXPORT_ID'))}`,
  ].join('\n')
}

export function javascriptSnippet(input: SnippetInput): string {
  const [count, start, status, download] = apiRequests(input)
  const url = (r: ApiRequest) => '`' + requestUrl(input.baseUrl, r, '${exportId}') + '`'
  const body = Object.entries(start!.body ?? {})
    .map(([k, v]) => (k === 'search_id' ? '  search_id: preview.search_id,' : `  ${k}: ${JSON.stringify(v)},`))
    .join('\n')
  return [
    `const headers = { Authorization: \`Token \${process.env.${KEY_VARIABLE}}\`, 'Content-Type': 'application/json' }`,
    'const call = async (url, init) => {',
    '  const res = await fetch(url, { headers, ...init })',
    '  if (!res.ok) throw new Error(`${res.status}: ${await res.text()}`)',
    '  return res.json()',
    '}',
    '',
    '// 1. Count the matching leads (free)',
    `const preview = await call(${JSON.stringify(requestUrl(input.baseUrl, count!))})`,
    'console.log(preview.totalCount)',
    '',
    '// 2. Export them (1 credit per lead)',
    `const started = await call(${JSON.stringify(requestUrl(input.baseUrl, start!))}, {`,
    "  method: 'POST',",
    '  body: JSON.stringify({',
    body.replace(/^/gm, '  '),
    '  }),',
    '})',
    'const exportId = started.search_id',
    '',
    '// 3. Wait until the file is ready',
    'for (;;) {',
    `  const { status, error } = await call(${url(status!)})`,
    "  if (status.toUpperCase() === 'COMPLETED') break",
    "  if (status.toUpperCase() === 'FAILED') throw new Error(error)",
    '  await new Promise((r) => setTimeout(r, 2000))',
    '}',
    '',
    '// 4. The signed download link',
    `const { download_url } = await call(${url(download!)})`,
    'console.log(download_url)',
  ].join('\n')
}

export function pythonSnippet(input: SnippetInput): string {
  const [count, start, status, download] = apiRequests(input)
  const params = count!.query.map(([k, v]) => `    (${JSON.stringify(k)}, ${JSON.stringify(v)}),`)
  const body = Object.entries(start!.body ?? {}).map(([k, v]) =>
    k === 'search_id' ? '        "search_id": preview["search_id"],' : `        ${JSON.stringify(k)}: ${JSON.stringify(v)},`,
  )
  const path = (r: ApiRequest) => `f"${input.baseUrl}${r.path.replace('{search_id}', '{export_id}')}"`
  return [
    'import os, time, requests',
    '',
    `headers = {"Authorization": f"Token {os.environ['${KEY_VARIABLE}']}"}`,
    '',
    '# 1. Count the matching leads (free)',
    'params = [',
    ...params,
    ']',
    `preview = requests.get("${input.baseUrl}${count!.path}", params=params, headers=headers)`,
    'preview.raise_for_status()',
    'preview = preview.json()',
    'print(preview["totalCount"])',
    '',
    '# 2. Export them (1 credit per lead)',
    'started = requests.post(',
    `    "${input.baseUrl}${start!.path}",`,
    '    json={',
    ...body,
    '    },',
    '    headers=headers,',
    ')',
    'started.raise_for_status()',
    'export_id = started.json()["search_id"]',
    '',
    '# 3. Wait until the file is ready',
    'while True:',
    `    state = requests.get(${path(status!)}, headers=headers).json()`,
    '    if state["status"].upper() == "COMPLETED":',
    '        break',
    '    if state["status"].upper() == "FAILED":',
    '        raise RuntimeError(state.get("error"))',
    '    time.sleep(2)',
    '',
    '# 4. The signed download link',
    `print(requests.get(${path(download!)}, headers=headers).json()["download_url"])`,
  ].join('\n')
}
