import { zodResolver } from '@hookform/resolvers/zod'
import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { useForm } from 'react-hook-form'
import { useTranslation } from 'react-i18next'
import { z } from 'zod/mini'
import { Alert } from '@/components/ui/alert'
import { Button } from '@/components/ui/button'
import { Dialog } from '@/components/ui/dialog'
import { TextField } from '@/components/ui/field'
import { revokeApiKey } from '@/api/api-keys/revoke-api-key'
import { apiKeysOptions } from '@/api/api-keys/get-api-keys'
import { ApiError } from '@/lib/api-client'
import { errorMessage } from '@/lib/error-message'
import { adoptTokens } from '@/lib/session'
import { changePassword, type PasswordChanged } from '@/api/account/change-password'

const schema = z
  .object({
    current_password: z.string().check(z.minLength(1, 'required')),
    new_password: z.string().check(z.minLength(1, 'required'), z.minLength(8, 'tooShort'), z.maxLength(128, 'tooLong')),
    confirm: z.string(),
  })
  .check(z.refine((v) => v.new_password === v.confirm, { path: ['confirm'], message: 'differ' }))
type Values = z.infer<typeof schema>
const KEYS = ['required', 'tooShort', 'tooLong', 'differ'] as const

/**
 * Change the password with the current one (a service extension). The service ends every session;
 * this tab takes the new one it hands back. Keys are not tied to the password, so the answer lists
 * those still working, with one action (confirmed) to revoke them all.
 */
export function PasswordForm() {
  const { t } = useTranslation('account')
  const queryClient = useQueryClient()
  const [changed, setChanged] = useState<PasswordChanged | null>(null)
  const [confirming, setConfirming] = useState(false)
  const {
    register,
    handleSubmit,
    setError,
    reset,
    formState: { errors, isSubmitting },
  } = useForm<Values>({ resolver: zodResolver(schema), defaultValues: { current_password: '', new_password: '', confirm: '' } })
  const [formError, setFormError] = useState<string | null>(null)

  const message = (field: keyof Values) => {
    const m = errors[field]?.message
    if (!m) return undefined
    return (KEYS as readonly string[]).includes(m) ? t(`password.errors.${m as (typeof KEYS)[number]}`) : m
  }

  const onSubmit = handleSubmit(async ({ current_password, new_password }) => {
    setFormError(null)
    setChanged(null)
    try {
      const res = await changePassword(current_password, new_password)
      adoptTokens(res.access, res.refresh)
      reset()
      setChanged(res)
    } catch (e) {
      const fields = e instanceof ApiError ? e.fieldErrors : {}
      if (fields.current_password?.[0])
        setError('current_password', { type: 'server', message: fields.current_password[0] }, { shouldFocus: true })
      else if (fields.new_password?.[0])
        setError('new_password', { type: 'server', message: fields.new_password[0] }, { shouldFocus: true })
      else setFormError(errorMessage(e))
    }
  })

  const revokeAll = useMutation({
    mutationFn: async (ids: string[]) => {
      const results = await Promise.allSettled(ids.map((id) => revokeApiKey(id)))
      if (results.some((r) => r.status === 'rejected')) throw new Error('some keys were not revoked')
    },
    onSettled: () => {
      setConfirming(false)
      void queryClient.invalidateQueries({ queryKey: apiKeysOptions().queryKey })
    },
  })

  const keys = changed?.api_keys ?? []
  return (
    <form onSubmit={onSubmit} noValidate className="space-y-4">
      <TextField
        label={t('password.current')}
        type="password"
        autoComplete="current-password"
        required
        error={message('current_password')}
        {...register('current_password')}
      />
      <TextField
        label={t('password.new')}
        type="password"
        autoComplete="new-password"
        required
        hint={t('password.hint')}
        error={message('new_password')}
        {...register('new_password')}
      />
      <TextField
        label={t('password.confirm')}
        type="password"
        autoComplete="new-password"
        required
        error={message('confirm')}
        {...register('confirm')}
      />
      {formError && <Alert tone="error">{formError}</Alert>}
      {changed && (
        <Alert tone="success">
          <p>{t('password.done')}</p>
          {keys.length > 0 && !revokeAll.isSuccess && (
            <>
              <p className="mt-2">{t('password.keysLeft', { n: keys.length })}</p>
              <ul className="mt-1 font-mono text-xs">
                {keys.map((k) => (
                  <li key={k.id}>
                    <bdi dir="ltr">{k.prefix}…</bdi>
                  </li>
                ))}
              </ul>
              <Button variant="danger" className="mt-2" onClick={() => setConfirming(true)}>
                {t('password.revokeAll', { n: keys.length })}
              </Button>
            </>
          )}
          {revokeAll.isSuccess && <p className="mt-2 font-medium">{t('password.revoked')}</p>}
        </Alert>
      )}
      {revokeAll.isError && <Alert tone="error">{t('password.revokeError')}</Alert>}
      <Button type="submit" loading={isSubmitting}>
        {isSubmitting ? t('password.saving') : t('password.submit')}
      </Button>
      <Dialog
        open={confirming}
        onClose={() => setConfirming(false)}
        title={t('password.revokeTitle')}
        description={t('password.revokeBody')}
        actions={
          <>
            <Button variant="secondary" onClick={() => setConfirming(false)}>
              {t('password.cancel')}
            </Button>
            <Button variant="danger" loading={revokeAll.isPending} onClick={() => revokeAll.mutate(keys.map((k) => k.id))}>
              {t('password.revokeConfirm')}
            </Button>
          </>
        }
      />
    </form>
  )
}
