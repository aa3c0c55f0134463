/**
 * Two cookies that tell the reference service which prerendered page to send (server/src/static.ts):
 * the dashboard's language and whether this browser holds a session. They are hints, never
 * credentials: the session itself stays in storage (docs/security.md), and a wrong hint costs only
 * a page rendered in the browser instead of painted from the HTML.
 */
export type PageHint = 'leads.lang' | 'leads.signed-in'

export function setPageHint(name: PageHint, value: string | null): void {
  if (typeof document === 'undefined') return
  try {
    const secure = location.protocol === 'https:' ? '; Secure' : ''
    document.cookie =
      value === null
        ? `${name}=; Max-Age=0; Path=/; SameSite=Lax`
        : `${name}=${encodeURIComponent(value)}; Max-Age=31536000; Path=/; SameSite=Lax${secure}`
  } catch {
    /* cookies disabled: the page renders in the browser */
  }
}
