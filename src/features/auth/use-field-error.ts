import { useTranslation } from 'react-i18next'
import en from '../../../locales/en/auth.json'

type ValidationKey = keyof typeof en.validation
const isValidationKey = (k: string): k is ValidationKey => Object.hasOwn(en.validation, k)

/**
 * Form messages are either our own keys ("validation.emailInvalid", from the zod schemas) or the
 * service's field errors, which are already sentences: translate the first, show the second as is.
 */
export function useFieldError() {
  const { t } = useTranslation('auth')
  return (message: string | undefined) => {
    if (!message) return undefined
    const key = message.startsWith('validation.') ? message.slice('validation.'.length) : ''
    return isValidationKey(key) ? t(`validation.${key}`) : message
  }
}
