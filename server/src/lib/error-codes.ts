/**
 * Every machine code the service puts on an error (issue 10), with the parameters that travel beside
 * it. A body's `code` names the whole answer; a 400's `error_codes.<field>[i]` names each field error.
 * The English `detail`/`errors` text stays for clients that only read text. Published in the OpenAPI
 * document (the `Error` schema's `code` enum and `ErrorCodes` extension) and translated by the
 * dashboard (locales/<lng>/errors.json: a test keeps the two lists equal).
 */
export const ERROR_CODES = {
  // answers (`code` of the body)
  invalid_input: { params: [], doc: '400: one or more fields are wrong; see `errors` and `error_codes`.' },
  bad_request: { params: [], doc: '400: the request itself is malformed (e.g. a bad Content-Length).' },
  invalid_characters: { params: [], doc: '400: a value holds characters that cannot be stored (U+0000).' },
  not_authenticated: { params: [], doc: '401: no credentials were sent.' },
  token_not_valid: { params: [], doc: '401 (or a 400 on `refresh`): the token is invalid, expired or ended.' },
  invalid_credentials: { params: [], doc: '401: no active account has this email and password.' },
  invalid_authorization_header: { params: [], doc: '401: the Authorization header is not `Bearer <jwt>` or `Api-Key <key>`.' },
  insufficient_credits: {
    params: ['required_credits', 'available_credits'],
    doc: '403: the export needs more credits than the account has (also as `validation_code`).',
  },
  email_not_confirmed: { params: [], doc: '403: exports, API keys and webhooks wait until the sign-up address is confirmed.' },
  api_key_not_allowed: { params: [], doc: '403: this needs a password sign-in; an API key cannot do it.' },
  api_key_read_only: { params: [], doc: '403 (extension `scoped_api_keys`): a read-only key cannot start exports or change anything.' },
  api_key_cap_reached: {
    params: ['cap', 'spent', 'required_credits'],
    doc: '403 (extension `scoped_api_keys`): the export would take the key past its monthly credit cap (also as `validation_code`).',
  },
  forbidden: { params: [], doc: '403: the credential may not do this (e.g. a tampered download signature).' },
  not_found: { params: [], doc: '404: no such resource for this account.' },
  conflict: {
    params: ['status'],
    doc: '409: the resource is not in a state that allows this (e.g. retrying an export that did not fail).',
  },
  price_changed: {
    params: ['credits_required'],
    doc: '409 (extension `lists`): the price is no longer the `expected_credits` the request names; nothing was charged.',
  },
  already_confirmed: { params: [], doc: '409: the address is already confirmed (resending, or a confirmation link used before).' },
  link_expired: { params: [], doc: '410: the download link has expired.' },
  body_too_large: { params: [], doc: '413: the request body is larger than 1 MB.' },
  unsupported_media_type: {
    params: [],
    doc: '415: the body is not in a format this endpoint takes (JSON: `Content-Type: application/json`).',
  },
  throttled: { params: ['retry_after'], doc: '429: too many requests; wait `retry_after` seconds (also in Retry-After).' },
  server_error: { params: [], doc: '500: something failed on the service; nothing was charged.' },
  unavailable: { params: [], doc: '503: the feature is not configured on this service.' },
  // field errors (`error_codes.<field>[i].code`)
  required: { params: [], doc: 'The field is required and was missing or empty.' },
  invalid: { params: [], doc: 'The value is not valid (no more specific code).' },
  invalid_type: { params: [], doc: 'The value has the wrong type (e.g. text where a number belongs).' },
  invalid_format: { params: [], doc: 'The value does not have the expected form.' },
  invalid_choice: { params: [], doc: 'The value is not one of the allowed choices.' },
  invalid_email: { params: [], doc: 'Not an email address.' },
  invalid_datetime: { params: [], doc: 'Not an ISO 8601 date-time with an offset.' },
  max_length: { params: ['limit'], doc: 'Longer than `limit` characters.' },
  min_length: { params: ['limit'], doc: 'Shorter than `limit` characters.' },
  max_value: { params: ['limit'], doc: 'Greater than `limit`.' },
  min_value: { params: ['limit'], doc: 'Less than `limit`.' },
  out_of_range: { params: ['min', 'max'], doc: 'Not a whole number from `min` to `max`.' },
  too_many_values: { params: ['limit'], doc: 'More than `limit` values in one list parameter.' },
  invalid_country_code: { params: [], doc: 'Not a two-letter country code.' },
  invalid_id: { params: [], doc: 'Not a positive 32-bit integer id.' },
  invalid_boolean: { params: [], doc: 'Not one of "true", "1", "false", "0".' },
  invalid_geometry: {
    params: [],
    doc: 'Extension `geo`: `within` is not a GeoJSON Polygon or MultiPolygon of [longitude, latitude] positions.',
  },
  ring_not_closed: { params: [], doc: 'Extension `geo`: a ring of `within` does not end where it starts.' },
  too_many_vertices: { params: [], doc: 'Extension `geo`: `within` has more vertices than capabilities allow (`geo.max_vertices`).' },
  self_intersection: { params: [], doc: 'Extension `geo`: a ring of `within` crosses or touches itself.' },
  area_too_large: { params: [], doc: 'Extension `geo`: `within` covers more than capabilities allow (`geo.max_area_km2`).' },
  invalid_near: { params: [], doc: 'Extension `geo`: `near` is not "latitude,longitude,radius_km" with a valid position.' },
  radius_out_of_range: { params: [], doc: 'Extension `geo`: the radius of `near` is not more than 0 and at most `geo.max_radius_km`.' },
  invalid_bbox: {
    params: [],
    doc: 'Extension `geo`: the map box is not "west,south,east,north" in degrees with west < east and south < north.',
  },
  invalid_zoom: { params: [], doc: 'Extension `geo`: the map zoom is not a whole number from 0 to 22.' },
  nul_character: { params: [], doc: 'Contains U+0000, which cannot be stored.' },
  control_characters: {
    params: [],
    doc: 'A name holds control characters or text-direction overrides (U+0000–U+001F, U+007F–U+009F, U+202A–U+202E, U+2066–U+2069).',
  },
  unknown_field: { params: [], doc: 'A body field this endpoint does not take.' },
  unknown_parameter: { params: ['suggestion'], doc: 'A query parameter this endpoint does not take; `suggestion` names the likely one.' },
  email_taken: { params: [], doc: 'An account with this email already exists.' },
  password_too_short: { params: ['limit'], doc: 'The new password has fewer than `limit` characters.' },
  password_too_long: { params: ['limit'], doc: 'The new password has more than `limit` characters.' },
  password_required: { params: [], doc: 'The current password is needed for this change.' },
  wrong_password: { params: [], doc: 'The current password is not correct.' },
  confirmation_invalid: { params: [], doc: 'The confirmation link is invalid, used or expired.' },
  reset_link_invalid: { params: [], doc: 'The reset link is invalid, used or expired.' },
  expiry_in_past: { params: [], doc: 'An API key expiry must be in the future.' },
  api_key_limit: { params: ['limit'], doc: 'The account already holds `limit` active API keys.' },
  all_leads_owned: {
    params: ['count'],
    doc: 'With `skip_owned`: the account already has all `count` leads of the search; nothing to export.',
  },
  watch_limit: { params: ['limit'], doc: 'Extension `watched_searches`: the account already watches `limit` searches.' },
  webhook_https_required: {
    params: [],
    doc: 'Extension `webhooks`: the endpoint URL must use https (plain http only to loopback on a development service).',
  },
  webhook_address_blocked: {
    params: [],
    doc: 'Extension `webhooks`: the endpoint is a private, loopback, link-local or otherwise reserved address.',
  },
  webhook_limit: { params: ['limit'], doc: 'Extension `webhooks`: the account already holds `limit` webhook endpoints.' },
  duplicate_value: { params: [], doc: 'A list names the same value twice (e.g. an export column).' },
  file_empty: { params: [], doc: 'Extension `lists`: the uploaded file holds no rows.' },
  file_no_header: { params: [], doc: 'Extension `lists`: the first row of the file holds data, not the names of the columns.' },
  file_too_many_rows: { params: ['limit'], doc: 'Extension `lists`: the file has more than `limit` data rows.' },
  file_too_large: { params: ['limit'], doc: 'Extension `lists`: the file is larger than `limit` MB.' },
  file_unreadable: {
    params: [],
    doc: 'Extension `lists`: the file is damaged, unpacks too large, or holds a cell that cannot be read (the message says where).',
  },
  file_type_unsupported: { params: [], doc: 'Extension `lists`: the file is neither CSV text nor an XLSX workbook.' },
  list_limit: { params: ['limit'], doc: 'Extension `lists`: the account already holds `limit` lists.' },
  unknown_list: {
    params: [],
    doc: 'Extension `lists`: a list left out of a search (`exclude_lists`) does not exist, was deleted or is another account’s.',
  },
  mapping_incomplete: {
    params: [],
    doc: 'Extension `lists`: a mapping needs the columns of a name and a city, a website, an email address or a phone.',
  },
} as const satisfies Record<string, { params: readonly string[]; doc: string }>

export type ErrorCode = keyof typeof ERROR_CODES
export const ERROR_CODE_LIST = Object.keys(ERROR_CODES) as ErrorCode[]
export const isErrorCode = (v: unknown): v is ErrorCode => typeof v === 'string' && Object.hasOwn(ERROR_CODES, v)

/** A markdown table of the codes, for the OpenAPI document's description. */
export function errorCodeTable(): string {
  const rows = ERROR_CODE_LIST.map((code) => {
    const { params, doc } = ERROR_CODES[code]
    return `| \`${code}\` | ${params.map((p) => `\`${p}\``).join(', ')} | ${doc} |`
  })
  return ['| code | parameters | meaning |', '|---|---|---|', ...rows].join('\n')
}
