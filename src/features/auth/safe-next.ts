/** `?next=` is honoured only for same-origin relative paths (no `//evil`, no `/\evil`, no scheme). */
export function safeNext(next: string | null | undefined, fallback = '/search'): string {
  if (!next || !next.startsWith('/') || next.startsWith('//') || next.startsWith('/\\')) return fallback
  try {
    const url = new URL(next, 'http://dashboard.invalid')
    if (url.origin !== 'http://dashboard.invalid') return fallback
    if (url.pathname.startsWith('/sign-in')) return fallback
    // normalisation can make a path protocol-relative (`/.//host` → `//host`): then it is not a path
    if (url.pathname.startsWith('//') || url.pathname.startsWith('/\\')) return fallback
    return `${url.pathname}${url.search}${url.hash}`
  } catch {
    return fallback
  }
}
