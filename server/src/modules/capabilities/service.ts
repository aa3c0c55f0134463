import type { Config } from '../../config.ts'
import { CELL_RESOLUTIONS, MAX_AREA_KM2, MAX_RADIUS_KM, MAX_VERTICES } from '../../lib/geometry.ts'
import { LANGUAGES } from '../../lib/schemas.ts'
import { DELIVERY_ERROR_CODES, SIGNATURE_HEADER, WEBHOOK_EVENTS } from '../../lib/webhooks.ts'
import { EMAIL_COLUMNS, EXPORT_COLUMNS, MAX_EMAIL_COLUMNS } from '../exports/file-locale.ts'
import { EXPORT_STATUSES, MAX_NAME, MAX_QUERY, MAX_WATCHED } from '../history/service.ts'
import { KEY_SCOPES } from '../keys/scope.ts'
import { MAX_FILE_MB, MAX_LISTS, MAX_ROWS } from '../lists/limits.ts'
import { LIST_FIELDS } from '../lists/mapping.ts'
import { MAX_KEY_NAME } from '../keys/service.ts'
import { MAX_CELLS } from '../search/cells.ts'
import { MAX_EXCLUDE_LISTS } from '../search/filters.ts'

/**
 * The extensions this service adds to the interface (decisions.md, "Extensions beyond the interface"):
 * a client asks once and hides what is not listed. Each is documented in /api/schema/ with `x-extension`.
 */
export const EXTENSIONS: Record<string, { version: number } & Record<string, unknown>> = {
  /** GET /api/companies/facets/: coverage of a search (contact data, top regions and categories) in one answer. */
  facets: { version: 1, limit: 8 },
  /**
   * Territories and the map (issue 26): `within` (a GeoJSON Polygon or MultiPolygon) and `near`
   * (`lat,lng,radius_km`) on every search, and GET /api/companies/cells/ (leads and owned leads per H3 cell).
   */
  geo: {
    version: 1,
    max_vertices: MAX_VERTICES,
    max_area_km2: MAX_AREA_KM2,
    max_radius_km: MAX_RADIUS_KM,
    max_cells: MAX_CELLS,
    resolutions: [...CELL_RESOLUTIONS],
  },
  /** POST /api/auth/logout/: sign-out ends the session at the service. */
  logout: { version: 1 },
  /** Sign-up confirmed by a mailed link (POST /api/auth/confirm-email/, …/resend/); `email_confirmed` and `pending_email` on the profile. */
  email_confirmation: { version: 1 },
  /** POST /api/user/password/ with the current password; an email change needs `current_password`. */
  password_change: { version: 1 },
  /** At most `limit` active API keys per account (set from MAX_API_KEYS when answered). */
  api_key_limit: { version: 1, limit: 25 },
  /** `skip_owned` on POST /api/download-csv/ and GET /api/companies/owned/: never pay twice for a lead (by place_id). */
  skip_owned: { version: 1 },
  /**
   * GET /api/locations/search/ finds places by their names in other languages too (Munich, Monachium for
   * München): `matched_name` on a match found so, `lng` for the reader's language.
   */
  place_names: { version: 1 },
  /** `columns` on POST /api/download-csv/: the lead fields the file holds, in order. */
  export_columns: { version: 1, columns: [...EXPORT_COLUMNS] },
  /** `file_locale` on POST /api/download-csv/: headers, separator and decimal mark of a language; BOM; RTL sheet for Hebrew. */
  file_locale: { version: 1, languages: [...LANGUAGES] },
  /** `email_columns` on POST /api/download-csv/: `split` writes one email per column (`email_1`…), at most `max_columns`. */
  email_columns: { version: 1, values: [...EMAIL_COLUMNS], max_columns: MAX_EMAIL_COLUMNS },
  /** `scope` and `monthly_credit_cap` on API keys; exports record their key (`api_key` on history entries). */
  scoped_api_keys: { version: 1, scopes: [...KEY_SCOPES] },
  /** `name` on POST /api/user/api-keys/ and on each listed key: what a key is for, at most `max_length` characters. */
  api_key_names: { version: 1, max_length: MAX_KEY_NAME },
  /** `name` and `watched` on history entries (PATCH), `?watched=true` on the history list; at most `limit` watched. */
  watched_searches: { version: 1, limit: MAX_WATCHED, name_max_length: MAX_NAME },
  /**
   * `q`, `country` and `status` on GET /api/user/search-history/: the service finds exports by name, places,
   * categories or number (case and accents aside), country and status, and pages the matches.
   */
  history_search: { version: 1, q_max_length: MAX_QUERY, statuses: [...EXPORT_STATUSES] },
  /**
   * Exports spend the credits that expire first (subscription credits at the period's end, each purchased
   * lot at its own date, never-expiring ones last); `charged_from` on the export's answer and history
   * entry, `credit_lots` on the profile in spending order.
   */
  credit_order: { version: 1, order: 'earliest_expiry_first' },
  /**
   * /api/user/webhooks: signed export.completed / export.failed deliveries with a log of error categories
   * (`error_codes`), endpoint health with …/resume/, test events per account and minute, endpoints
   * added per hour (limits and loopback set when answered).
   */
  webhooks: {
    version: 1,
    events: [...WEBHOOK_EVENTS],
    signature_header: SIGNATURE_HEADER,
    limit: 10,
    allow_http_loopback: false,
    health: true,
    error_codes: [...DELIVERY_ERROR_CODES],
    tests_per_minute: 5,
    creations_per_hour: 20,
  },
  /**
   * /api/lists/: upload a CSV or XLSX of businesses, confirm the proposed mapping of its columns to
   * `fields`, match it to companies as a job (free) by `rules`, read the report and its CSV.
   */
  lists: {
    version: 1,
    limit: MAX_LISTS,
    max_rows: MAX_ROWS,
    max_file_mb: MAX_FILE_MB,
    fields: [...LIST_FIELDS],
    rules: ['domain', 'phone', 'name_city'],
    /**
     * "Fill in my list": GET/POST /api/lists/{id}/enrichment/, an export of a matched list's companies
     * in the person's own file, charged per matched company (skip_owned: those the account lacks).
     */
    enrichment: { version: 1, formats: ['csv', 'excel'], skip_owned: true, expected_credits: true },
    /**
     * `exclude_lists` (list ids) on GET /api/companies/, …/facets/, …/owned/, …/cells/ and so on every
     * export and fresh data of such a search: the lists' matched companies are left out; the preview
     * says how many (`excluded_by_lists`).
     */
    exclude_lists: { max: MAX_EXCLUDE_LISTS },
  },
}

/** The extensions as this running service has them: the limits and switches its configuration sets. */
export function capabilitiesOf(config: Config) {
  return {
    ...EXTENSIONS,
    api_key_limit: { version: 1, limit: config.maxApiKeys },
    webhooks: {
      ...EXTENSIONS.webhooks!,
      version: 1,
      limit: config.webhooks.maxEndpoints,
      allow_http_loopback: config.webhooks.allowHttpLoopback,
      tests_per_minute: config.webhooks.testsPerMinute,
      creations_per_hour: config.webhooks.creationsPerHour,
    },
  }
}
