/**
 * The English texts of the real service (Django REST framework, simplejwt, Django's password
 * validators) and of the reference service, for answers that carry no code.
 */
export const RECOGNISED: Array<[RegExp, string, (m: RegExpExecArray) => Record<string, number>]> = [
  [/^This field (is required|may not be (blank|null))\.$/i, 'required', () => ({})],
  [/^Ensure this field has no more than (\d+) characters?\.$/i, 'max_length', (m) => ({ limit: Number(m[1]) })],
  [/^Ensure this field has at least (\d+) characters?\.$/i, 'min_length', (m) => ({ limit: Number(m[1]) })],
  [/^Ensure this value is less than or equal to (-?\d+)\.$/i, 'max_value', (m) => ({ limit: Number(m[1]) })],
  [/^Ensure this value is greater than or equal to (-?\d+)\.$/i, 'min_value', (m) => ({ limit: Number(m[1]) })],
  [/^Enter a valid email address\.$/i, 'invalid_email', () => ({})],
  [/^(user|account|an account) with this email( address)? already exists\.$/i, 'email_taken', () => ({})],
  [/^This password is too short\. It must contain at least (\d+) characters?\.$/i, 'password_too_short', (m) => ({ limit: Number(m[1]) })],
  [/^This password is too common\.$/i, 'password_too_common', () => ({})],
  [/^This password is entirely numeric\.$/i, 'password_entirely_numeric', () => ({})],
  [/^The password is too similar to the .+\.$/i, 'password_too_similar', () => ({})],
  [/^Given token not valid for any token type$|^Token is invalid or expired$/i, 'token_not_valid', () => ({})],
  [/^No active account found with the given credentials$/i, 'invalid_credentials', () => ({})],
  [/^Authentication credentials were not provided\.$/i, 'not_authenticated', () => ({})],
  [/^You do not have permission to perform this action\.$/i, 'forbidden', () => ({})],
  [/^Request was throttled\. Expected available in (\d+) seconds?\.$/i, 'throttled', (m) => ({ retry_after: Number(m[1]) })],
  [/^(Not found|No \w+ matches the given query)\.$/i, 'not_found', () => ({})],
  [/^"[^"]*" is not a valid choice\.$/i, 'invalid_choice', () => ({})],
  [/^A valid (integer|number) is required\.$/i, 'invalid_type', () => ({})],
  [/^(Datetime|Date) has wrong format\./i, 'invalid_datetime', () => ({})],
]
