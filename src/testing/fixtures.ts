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
