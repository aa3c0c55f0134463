import { useSyncExternalStore } from 'react'
import { api, ApiError, buildUrl, CLIENT_CODES, setAuthHandlers } from './api-client'
import { setPageHint } from './page-hints'

/**
 * The signed-in session (docs/security.md says why tokens live where they do):
 * - the access token only in this tab's memory;
 * - the refresh token in localStorage, so that every tab of the dashboard shares one session
 *   and a reload does not sign the person out.
 * Tabs coordinate over a BroadcastChannel (storage events as the fallback): a refreshed access
 * token is handed to the other tabs, and signing out anywhere signs out everywhere. The refresh
 * call itself runs under a Web Lock, so with rotation only one tab ever spends a refresh token.
 */
export type SessionEndReason = 'signed-out' | 'expired'

const REFRESH_KEY = 'leads.refresh'
const CHANNEL_NAME = 'leads.session'
const LOCK_NAME = 'leads.session.refresh'
/** How long a tab waits for another tab's new access token once it saw that tab rotate the refresh token. */
const PEER_TOKEN_WAIT_MS = 1_500

type Message = { type: 'access'; access: string } | { type: 'signed-out'; reason: SessionEndReason }

let accessToken: string | null = null
/** The refresh token that was current when `accessToken` was issued: a different one in storage means another tab refreshed since. */
let refreshOfAccess: string | null = null
let refreshInFlight: Promise<string> | null = null
let memoryRefresh: string | null = null // when storage is unavailable (private mode)
const storeListeners = new Set<() => void>()
const endListeners = new Set<(reason: SessionEndReason) => void>()
const accessWaiters = new Set<(token: string) => void>()

function readRefresh(): string | null {
  try {
    return localStorage.getItem(REFRESH_KEY)
  } catch {
    return memoryRefresh
  }
}

function writeRefresh(token: string | null) {
  memoryRefresh = token
  try {
    if (token) localStorage.setItem(REFRESH_KEY, token)
    else localStorage.removeItem(REFRESH_KEY)
  } catch {
    /* memoryRefresh holds it for this tab */
  }
}

export interface SessionSnapshot {
  signedIn: boolean
  /** Why the last session of this tab ended, until the next sign-in (the sign-in page says it). */
  endReason: SessionEndReason | null
}
let snapshot: SessionSnapshot = { signedIn: readRefresh() !== null, endReason: null }
let endReason: SessionEndReason | null = null

function publish() {
  const signedIn = readRefresh() !== null
  if (signedIn) endReason = null
  if (signedIn !== snapshot.signedIn || endReason !== snapshot.endReason) {
    if (signedIn !== snapshot.signedIn) setPageHint('leads.signed-in', signedIn ? '1' : null)
    snapshot = { signedIn, endReason }
    for (const l of storeListeners) l()
  }
}

/**
 * The channel to the dashboard's other tabs, joined in a task of its own after this module has run
 * (or by the first message this tab sends), so that the first evaluation of the app's modules, the
 * longest task of a slow phone's start, does not carry it. A message or storage event in between is
 * missed: the storage is read again once joined. Not while prerendering in Node, whose
 * BroadcastChannel would keep the build running.
 */
let channel: BroadcastChannel | null = null
let joined = false
function joinTabs(): BroadcastChannel | null {
  if (joined || typeof window === 'undefined') return channel
  joined = true
  if (typeof BroadcastChannel === 'function') {
    channel = new BroadcastChannel(CHANNEL_NAME)
    channel.addEventListener('message', (event: MessageEvent<Message>) => {
      const msg = event.data
      if (msg?.type === 'access') receiveAccess(msg.access)
      else if (msg?.type === 'signed-out') endSession(msg.reason, { broadcast: false })
    })
  }
  // Fallback for browsers without BroadcastChannel, and a second signal where both exist.
  window.addEventListener('storage', (event) => {
    if (event.key !== REFRESH_KEY && event.key !== null) return
    if (readRefresh() === null) endSession('signed-out', { broadcast: false })
    else publish()
  })
  return channel
}
if (typeof window !== 'undefined')
  setTimeout(() => {
    if (!joined) {
      joinTabs()
      // what another tab did before this one listened: a sign-out there ends this session too
      if (snapshot.signedIn && readRefresh() === null) endSession('signed-out', { broadcast: false })
      else publish()
    }
    // renewed on every start (a year's expiry), in the same later task
    setPageHint('leads.signed-in', snapshot.signedIn ? '1' : null)
  }, 0)

function post(message: Message) {
  joinTabs()?.postMessage(message)
}

function receiveAccess(token: string) {
  accessToken = token
  refreshOfAccess = readRefresh()
  for (const w of accessWaiters) w(token)
  accessWaiters.clear()
  publish()
}

function endSession(reason: SessionEndReason, { broadcast }: { broadcast: boolean }) {
  const wasSignedIn = accessToken !== null || readRefresh() !== null || snapshot.signedIn
  accessToken = null
  refreshOfAccess = null
  writeRefresh(null)
  if (wasSignedIn) endReason = reason
  if (broadcast) post({ type: 'signed-out', reason })
  publish()
  if (wasSignedIn) for (const l of endListeners) l(reason)
}

function sessionEndedError() {
  return new ApiError(401, { detail: 'Your session has ended.', code: CLIENT_CODES.sessionEnded })
}

function waitForPeerAccess(ms: number): Promise<string | null> {
  return new Promise((resolve) => {
    const done = (token: string | null) => {
      clearTimeout(timer)
      accessWaiters.delete(done)
      resolve(token)
    }
    const timer = setTimeout(() => done(null), ms)
    accessWaiters.add(done)
  })
}

/** Runs `fn` holding the cross-tab refresh lock when the browser has Web Locks. */
function withRefreshLock<T>(fn: () => Promise<T>): Promise<T> {
  const locks = typeof navigator !== 'undefined' ? navigator.locks : undefined
  return locks ? (locks.request(LOCK_NAME, fn) as Promise<T>) : fn()
}

/** Token bodies are checked by hand: zod stays off the sign-in page's first load. */
const nonEmpty = (v: unknown): v is string => typeof v === 'string' && v.length > 0
function readTokens(body: unknown): { access: string; refresh: string | undefined } | null {
  if (!body || typeof body !== 'object') return null
  const { access, refresh } = body as Record<string, unknown>
  if (!nonEmpty(access) || (refresh !== undefined && refresh !== null && !nonEmpty(refresh))) return null
  return { access, refresh: nonEmpty(refresh) ? refresh : undefined }
}

async function callRefreshEndpoint(refresh: string): Promise<string> {
  const res = await fetch(buildUrl('/api/token/refresh/'), {
    method: 'POST',
    headers: { Accept: 'application/json', 'Content-Type': 'application/json', 'X-Request-ID': crypto.randomUUID() },
    body: JSON.stringify({ refresh }),
  })
  const text = await res.text()
  let body: unknown
  try {
    body = text ? JSON.parse(text) : undefined
  } catch {
    body = undefined
  }
  if (res.status === 400 || res.status === 401 || res.status === 403) {
    // the refresh token is dead (expired, revoked, reused): the session is over in every tab
    endSession('expired', { broadcast: true })
    throw sessionEndedError()
  }
  if (!res.ok) throw new ApiError(res.status, body)
  const tokens = readTokens(body)
  if (!tokens) throw new ApiError(res.status, { detail: 'Unexpected refresh response.', code: CLIENT_CODES.invalidResponse })
  // rotation: the new refresh token replaces the old one before anybody else can read it
  if (tokens.refresh) writeRefresh(tokens.refresh)
  accessToken = tokens.access
  refreshOfAccess = readRefresh()
  post({ type: 'access', access: tokens.access })
  publish()
  return tokens.access
}

/**
 * One refresh for every request that failed with `failedToken`, in this tab and across tabs.
 * Resolves to the new access token; rejects with ApiError(401, code session_ended) when over.
 */
export function refreshAccessToken(failedToken: string | null): Promise<string> {
  if (accessToken && accessToken !== failedToken) return Promise.resolve(accessToken)
  if (refreshInFlight) return refreshInFlight
  const seenRefresh = readRefresh()
  refreshInFlight = withRefreshLock(async () => {
    // another tab may have refreshed while this one waited for the lock
    if (accessToken && accessToken !== failedToken) return accessToken
    let current = readRefresh()
    if (!current) {
      endSession('expired', { broadcast: false })
      throw sessionEndedError()
    }
    const rotatedElsewhere = current !== seenRefresh || (refreshOfAccess !== null && current !== refreshOfAccess)
    if (rotatedElsewhere) {
      const peer = accessToken && accessToken !== failedToken ? accessToken : await waitForPeerAccess(PEER_TOKEN_WAIT_MS)
      if (peer) return peer
      current = readRefresh()
      if (!current) throw sessionEndedError()
    }
    return callRefreshEndpoint(current)
  }).finally(() => {
    refreshInFlight = null
  })
  return refreshInFlight
}

async function getAccessToken(): Promise<string | null> {
  if (accessToken) return accessToken
  if (refreshInFlight) return refreshInFlight
  if (!readRefresh()) return null
  // a reload or a new tab: nothing in memory yet, so get an access token before the first call
  return refreshAccessToken(null)
}

setAuthHandlers({ getAccessToken, refreshAccessToken })

export async function signIn(email: string, password: string): Promise<void> {
  // the login `user` object (interface 2.1, last paragraph) is not needed: the profile follows
  const body = await api('/api/auth/login/', { method: 'POST', body: { username: email, password }, auth: false, retryThrottled: false })
  const res = readTokens(body)
  if (!res?.refresh) throw new ApiError(200, { detail: 'Unexpected login response.', code: CLIENT_CODES.invalidResponse })
  writeRefresh(res.refresh)
  accessToken = res.access
  refreshOfAccess = res.refresh
  post({ type: 'access', access: res.access })
  publish()
}

/**
 * Ends the session here and in every other tab, and at the service: POST /api/auth/logout/ (an
 * extension) revokes the refresh token's session, so a copy of it is worth nothing. Fire and forget
 * (keepalive survives the page change); a service without the endpoint (404) or offline changes
 * nothing here: the tab forgets the tokens either way.
 */
export function signOut(): void {
  const refresh = readRefresh()
  endSession('signed-out', { broadcast: true })
  if (refresh) {
    void fetch(buildUrl('/api/auth/logout/'), {
      method: 'POST',
      keepalive: true,
      headers: { 'Content-Type': 'application/json', 'X-Request-ID': crypto.randomUUID() },
      body: JSON.stringify({ refresh }),
    }).catch(() => undefined)
  }
}

/** After a password change the service hands this tab a new session (every other one ended). */
export function adoptTokens(access: string, refresh: string): void {
  writeRefresh(refresh)
  accessToken = access
  refreshOfAccess = refresh
  post({ type: 'access', access })
  publish()
}

/** Called when the session ends for any reason, in this tab or (via the channel) in another. */
export function onSessionEnd(listener: (reason: SessionEndReason) => void): () => void {
  endListeners.add(listener)
  return () => endListeners.delete(listener)
}

function subscribe(listener: () => void) {
  storeListeners.add(listener)
  return () => storeListeners.delete(listener)
}

export function useSession(): SessionSnapshot {
  return useSyncExternalStore(
    subscribe,
    () => snapshot,
    () => snapshot,
  )
}

export const isSignedIn = () => snapshot.signedIn

/** Prerendering only (src/boot/prerender.tsx): the page is rendered as this browser state would render it. */
export function assumeSessionForPrerender(signedIn: boolean): void {
  snapshot = { signedIn, endReason: null }
}

/** Test seam: forget the in-memory token (as a reload would). */
export function resetSessionForTests() {
  accessToken = null
  refreshOfAccess = null
  endReason = null
  refreshInFlight = null
  accessWaiters.clear()
  writeRefresh(null)
  publish()
}

/** Test seam: put a session in place without signing in. */
export function setTokensForTests(access: string | null, refresh: string | null) {
  accessToken = access
  writeRefresh(refresh)
  refreshOfAccess = access ? refresh : null
  publish()
}

export const REFRESH_STORAGE_KEY = REFRESH_KEY
