import { profileOptions, profileSchema } from '@/api/account/profile'
import { createTestQueryClient } from './render'

/** A signed-in person's profile (interface 2.1) as the reference service sends it: Pro plan, some purchased credits. */
export const proProfile = {
  id: 3,
  email: 'grace@example.com',
  first_name: 'Grace',
  last_name: 'Hopper',
  subscription_plan: { plan_type: 'Pro', monthly_credits: 5000, price_per_month: '99.00', link_expiration_days: 14 },
  total_credits: 5000,
  remaining_credits: 1234,
  purchased_credits_available: 300,
  purchased_credits_expiring_soon: 0,
  current_period_start: 1_793_000_000,
  current_period_end: 1_795_592_000,
  can_download_fresh_exports: true,
  preferred_language: 'en',
}

/** The profile (as the service sends it) of someone with this balance on a Pro plan: 1,000 credits a month, links kept 14 days. */
export const balanceProfile = (subscription: number, purchased = 0, extra: Record<string, unknown> = {}) => ({
  id: 7,
  email: 'a@example.com',
  subscription_plan: { plan_type: 'Pro', monthly_credits: 1000, price_per_month: '49.00', link_expiration_days: 14 },
  remaining_credits: subscription,
  purchased_credits_available: purchased,
  ...extra,
})

/**
 * A query client already holding that profile, for the export dialogs that read it; `extra` adds
 * profile fields (`credit_lots`). Its id is '7', the account of the exports it records in this browser.
 */
export function withBalance(subscription: number, purchased = 0, extra: Record<string, unknown> = {}) {
  const queryClient = createTestQueryClient()
  queryClient.setQueryData(profileOptions().queryKey, profileSchema().parse(balanceProfile(subscription, purchased, extra)))
  return queryClient
}

/** A completed CSV export as `GET /api/user/search-history/` lists it (link alive for 5 more days); `patch` overrides. */
export function historyEntry(id: number, patch: Record<string, unknown> = {}) {
  return {
    search_id: id,
    filters: { countries: ['DE'], category: [], level1_location: [], level2_location: [], level3_location: [], email: true },
    created_at: '2026-11-01T09:00:00Z',
    status: 'COMPLETED',
    lead_count: 120,
    credits_charged: 120,
    export_format: 'csv',
    capped: false,
    expires_at: new Date(Date.now() + 5 * 86_400_000).toISOString(),
    max_leads: null,
    delta_of: null,
    filename: `export-${id}.csv`,
    file_size_bytes: 20_480,
    name: null,
    watched: false,
    ...patch,
  }
}
