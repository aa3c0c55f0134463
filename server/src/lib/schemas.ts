import { z } from '@hono/zod-openapi'
import { ERROR_CODE_LIST, errorCodeTable, type ErrorCode } from './error-codes.ts'

/** Shared zod schemas of the accounts side (interface parts 2 and 8); they also feed the OpenAPI doc. */

export const INT32_MIN = -2_147_483_648
export const INT32_MAX = 2_147_483_647

export const LANGUAGES = [
  'bg',
  'cs',
  'da',
  'de',
  'el',
  'fr',
  'en',
  'es',
  'et',
  'fi',
  'he',
  'hr',
  'hu',
  'it',
  'lt',
  'lv',
  'nb',
  'nl',
  'pl',
  'pt',
  'ro',
  'sk',
  'sl',
  'sr',
  'sv',
  'th',
  'tr',
] as const

/**
 * PostgreSQL cannot store U+0000 in text (it answers error 22021, which used to become a 500). Every
 * string the service accepts — JSON bodies, query and path parameters, headers — is built on
 * `safeString()` (or carries `refuseNul`), so a NUL byte is a 400 on its field before any query runs.
 * app.ts maps 22021/22P05 to 400 as a backstop for anything that slips past.
 */
export const NUL_MESSAGE = 'Must not contain a NUL character (U+0000).'
export const hasNoNul = (s: string) => !s.includes('\u0000')
export const refuseNul = [hasNoNul, { message: NUL_MESSAGE, params: { code: 'nul_character' } }] as const
/** z.string() that refuses NUL: the base of every request string schema. */
export const safeString = () => z.string().refine(...refuseNul)

export const int32 = () => z.number().int().min(INT32_MIN).max(INT32_MAX)
export const languageSchema = z.enum(LANGUAGES).openapi({ description: 'Two-letter UI language (27 values).' })
export const emailSchema = z
  .email()
  .max(254)
  .refine(...refuseNul)
/**
 * Names people give (first and last name, a search's name) are shown beside other text: control
 * characters (C0 and C1; U+0000 has its own check above) and bidi overrides and isolates
 * (U+202A–U+202E, U+2066–U+2069) are refused, so a name cannot reverse or reorder the label next to
 * it (issue 22: "‮" turned "Export #97" around).
 */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROL_OR_BIDI = /[\u0001-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]/
export const refuseControl = [
  (s: string) => !CONTROL_OR_BIDI.test(s),
  { message: 'Must not contain control characters or text-direction overrides.', params: { code: 'control_characters' } },
] as const
/** A name: plain text, no NUL, no control or bidi-override characters. */
export const plainText = () => safeString().refine(...refuseControl)
export const nameSchema = plainText().max(150)
/** A positive int32 id in a path. */
export const idParam = (name: string) =>
  safeString()
    .refine((s) => /^\d{1,10}$/.test(s), { message: 'Must be a positive integer.', params: { code: 'invalid_id' } })
    .transform(Number)
    .refine((n) => n >= 1 && n <= INT32_MAX, { message: 'Must be a positive 32-bit integer.', params: { code: 'invalid_id' } })
    .openapi({ param: { name, in: 'path' }, type: 'integer', example: 1 })

const errorCodeSchema = z.enum(ERROR_CODE_LIST as [ErrorCode, ...ErrorCode[]])

export const ErrorSchema = z
  .object({
    detail: z.string().openapi({ description: 'What happened, in English, for people.' }),
    code: errorCodeSchema.openapi({ description: 'Extension: what happened, for programs (the table above).' }),
    errors: z.record(z.string(), z.array(z.string())).optional().openapi({ description: '400: field → English messages.' }),
    error_codes: z
      .record(z.string(), z.array(z.object({ code: errorCodeSchema }).catchall(z.union([z.string(), z.number()]))))
      .optional()
      .openapi({ description: 'Extension, 400: field → `{code, ...parameters}`, index for index with `errors`.' }),
    retry_after: z.number().int().optional().openapi({ description: 'With `throttled`: seconds to wait.' }),
  })
  .catchall(z.unknown())
  .openapi('Error', {
    description: `Every error answer. \`code\` and \`error_codes\` are extensions that let a client translate the error; the English text stays beside them.\n\n${errorCodeTable()}`,
  })

export const InsufficientCreditsSchema = z
  .object({
    detail: z.string(),
    validation_code: z.literal('insufficient_credits'),
    required_credits: z.number().int(),
    available_credits: z.number().int(),
  })
  .openapi('InsufficientCredits')

/**
 * Extension `credit_order` (capabilities): which balances paid an export. A charge takes the credits
 * that expire first (decisions.md "Credits"); the two add up to `credits_charged`.
 */
export const chargedFromSchema = (description: string) =>
  z
    .object({
      subscription: z.number().int().min(0).openapi({ description: 'Credits taken from the subscription balance.' }),
      purchased: z.number().int().min(0).openapi({ description: 'Credits taken from purchased lots.' }),
    })
    .openapi({ description: `Extension \`credit_order\`: ${description}`, 'x-extension': true })

/** Extension `credit_order`: one spendable balance on the profile, in the order a charge spends them. */
export const CreditLotSchema = z
  .object({
    source: z.enum(['subscription', 'purchased']),
    credits: z.number().int().min(1),
    expires_at: z.string().nullable().openapi({ format: 'date-time', description: 'null: never expires.' }),
  })
  .openapi('CreditLot')

export const jsonError = (description: string) => ({
  description,
  content: { 'application/json': { schema: ErrorSchema } },
})

export const jsonBody = <T extends z.ZodType>(schema: T, required = true) => ({
  required,
  content: { 'application/json': { schema } },
})

/** The 401/429 answers every protected route can give. */
export const authErrors = {
  401: jsonError('Credential missing, invalid or expired (`code: token_not_valid`).'),
  429: jsonError('Rate limit exceeded; see Retry-After.'),
} as const

export const SubscriptionPlanSchema = z
  .object({
    id: z.number().int(),
    plan_type: z.string().max(20),
    monthly_credits: int32(),
    price_per_month: z.string().regex(/^-?\d{0,8}(?:\.\d{0,2})?$/),
    link_expiration_days: int32(),
    product_id: z.string().max(100),
    price_id: z.string().max(100),
    is_active: z.boolean(),
    is_sellable: z.boolean(),
    allows_fresh_exports: z.boolean(),
    created_at: z.string().openapi({ format: 'date-time' }),
    updated_at: z.string().openapi({ format: 'date-time' }),
  })
  .openapi('SubscriptionPlan')

export type SubscriptionPlan = z.infer<typeof SubscriptionPlanSchema>

export const UserSchema = z
  .object({
    id: z.number().int(),
    email: z.string(),
    first_name: z.string(),
    last_name: z.string(),
    subscription_plan: SubscriptionPlanSchema.nullable(),
    total_credits: z.number().int(),
    remaining_credits: int32().nullable(),
    purchased_credits_available: z.number().int(),
    purchased_credits_expiring_soon: z.number().int(),
    current_period_start: int32().nullable().openapi({ description: 'Epoch seconds.' }),
    current_period_end: int32().nullable().openapi({ description: 'Epoch seconds.' }),
    can_download_fresh_exports: z.boolean(),
    preferred_language: languageSchema,
    email_confirmed: z.boolean().optional().openapi({
      description: 'Extension: false until the sign-up address is confirmed (no credits, no exports until then).',
    }),
    pending_email: z.string().nullable().optional().openapi({
      description: 'Extension: a requested new address waiting for its confirmation link; `email` changes only then.',
    }),
    credit_lots: z.array(CreditLotSchema).optional().openapi({
      description:
        'Extension `credit_order`: the spendable balances (credits > 0, expired lots left out) in the order an export spends them, the earliest expiry first: subscription credits expire at `current_period_end` (never without one), each purchased lot at its own date, lots without a date last.',
      'x-extension': true,
    }),
  })
  .openapi('User')

export type User = z.infer<typeof UserSchema>
