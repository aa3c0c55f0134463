import { ApiError, CLIENT_CODES } from './api-client'
import { translateIssue } from './error-codes'
import { i18n } from './i18n'

/**
 * A sentence for a person, in the active language, for any error a query or mutation threw.
 * Features pass their own message for cases they know better (e.g. 410, insufficient credits).
 */
export function errorMessage(error: unknown): string {
  const t = i18n.getFixedT(null, 'common')
  if (error instanceof ApiError) {
    if (error.status === 429) return t('errors.busy')
    if (error.code === CLIENT_CODES.sessionEnded) return t('errors.sessionEnded')
    if (error.code === CLIENT_CODES.invalidResponse) return t('errors.invalidResponse')
    if (error.status === 404) return t('errors.notFound')
    // 4xx answers say what happened: by their code in the person's language, else as the service wrote
    // them (its own reason, never replaced by ours); a bare 403 with no words is "not allowed"; 5xx
    // details are not written for people
    // a 400 whose fields the caller could not show beside a control: say what the first one is about
    const fields = Object.values(error.fieldErrors)
    if (error.status === 400 && fields[0]?.length) return fields[0].join(' ')
    if (error.status >= 400 && error.status < 500 && error.detail && !error.detail.startsWith('Request failed')) {
      return translateIssue(error.issue)
    }
    if (error.status === 403) return t('errors.forbidden')
    return t('errors.unexpected')
  }
  if (error instanceof TypeError) return t('errors.network')
  return t('errors.unexpected')
}
