import { zodResolver } from '@hookform/resolvers/zod'
import { useMemo } from 'react'
import { useForm } from 'react-hook-form'
import { useTranslation } from 'react-i18next'
import { Alert } from '@/components/ui/alert'
import { Button } from '@/components/ui/button'
import { TextField } from '@/components/ui/field'
import { ApiError } from '@/lib/api-client'
import {
  createApiKeyFormSchema,
  useCreateApiKey,
  type CreateApiKeyForm,
  type CreatedApiKey,
} from '../api/create-api-key'

const todayLocal = () => {
  const d = new Date()
  const pad = (n: number) => String(n).padStart(2, '0')
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`
}

export function CreateKeyForm({ onCreated }: { onCreated: (created: CreatedApiKey) => void }) {
  const { t } = useTranslation('apikeys')
  const create = useCreateApiKey()
  const schema = useMemo(() => createApiKeyFormSchema(), [])
  const {
    register,
    handleSubmit,
    setError,
    reset,
    formState: { errors },
  } = useForm<CreateApiKeyForm>({ resolver: zodResolver(schema), defaultValues: { expiry: '' } })

  const onSubmit = (values: CreateApiKeyForm) =>
    create.mutate(values, {
      onSuccess: (created) => {
        reset()
        onCreated(created)
      },
      onError: (e) => {
        const msg = e instanceof ApiError ? e.fieldErrors.expiry?.[0] : undefined
        if (msg) setError('expiry', { type: 'server', message: msg })
      },
    })

  const expiryError = errors.expiry?.message
  const expiryText =
    expiryError === 'past' ? t('create.past') : expiryError === 'invalid' ? t('create.invalid') : expiryError
  const otherError = create.isError && !(create.error instanceof ApiError && create.error.fieldErrors.expiry)

  return (
    <form onSubmit={handleSubmit(onSubmit)} noValidate className="space-y-4">
      <TextField
        label={t('create.expiry')}
        hint={t('create.expiryHint')}
        type="date"
        min={todayLocal()}
        error={expiryText}
        className="max-w-xs"
        {...register('expiry')}
      />
      {otherError && (
        <Alert tone="error">
          {t('create.error', { detail: create.error instanceof ApiError ? create.error.detail : String(create.error) })}
        </Alert>
      )}
      <Button type="submit" loading={create.isPending}>
        {create.isPending ? t('create.submitting') : t('create.submit')}
      </Button>
    </form>
  )
}
