import { useQuery } from '@tanstack/react-query'
import { useState, type FormEvent } from 'react'
import { Button as AriaButton, DropZone, FileTrigger, Text, isFileDropItem, type DropItem } from 'react-aria-components'
import { useTranslation } from 'react-i18next'
import { useNavigate } from 'react-router'
import { useUploadList } from '@/api/lists/upload-list'
import { countriesOptions } from '@/api/search/get-countries'
import { Alert } from '@/components/ui/alert'
import { Button, buttonClass } from '@/components/ui/button'
import { SelectField, TextField } from '@/components/ui/field'
import { paths } from '@/config/paths'
import { ApiError } from '@/lib/api-client'
import { errorMessage } from '@/lib/error-message'
import { compareNames, countryName, formatBytes, formatNumber, formatPercent } from '@/lib/format'

export interface UploadLimits {
  maxFileMb: number
  maxRows: number
}

const ACCEPTED = ['.csv', '.txt', '.xlsx', 'text/csv', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet']
const looksAccepted = (f: File) => /\.(csv|txt|tsv|xlsx)$/i.test(f.name)
const FILE_CODES = [
  'file_empty',
  'file_no_header',
  'file_too_many_rows',
  'file_too_large',
  'file_unreadable',
  'file_type_unsupported',
] as const
type FileCode = (typeof FILE_CODES)[number]
const isFileCode = (c: string | undefined): c is FileCode => (FILE_CODES as readonly (string | undefined)[]).includes(c)

/**
 * React Aria's pressable parts add a `<style>` element to the page unless an element with this id is
 * there; the dashboard's CSP refuses inline styles, so the id is held by a hidden span and the rule it
 * would set comes from the stylesheet's classes (`touch-*`), as in the API keys' date field.
 */
const ARIA_PRESS_STYLE_ID = 'react-aria-pressable-style'

/** The file by drag-and-drop or the picker, its name and phone country, sent with its progress. */
export function UploadForm({ limits }: { limits: UploadLimits }) {
  const { t, i18n } = useTranslation('lists')
  const lng = i18n.language
  const navigate = useNavigate()
  const upload = useUploadList()
  const countries = useQuery(countriesOptions())
  const [file, setFile] = useState<File | null>(null)
  const [name, setName] = useState('')
  const [country, setCountry] = useState('')
  const [progress, setProgress] = useState(0)
  const [problem, setProblem] = useState<string | null>(null)

  const choose = (f: File | undefined) => {
    if (!f) return
    upload.reset()
    setFile(f)
    setProblem(
      !looksAccepted(f)
        ? t('upload.wrongType')
        : f.size > limits.maxFileMb * 1024 * 1024
          ? t('upload.tooLarge', { mb: formatNumber(lng, limits.maxFileMb) })
          : null,
    )
  }
  const onDrop = async (items: DropItem[]) => {
    const item = items.find(isFileDropItem)
    if (item) choose(await item.getFile())
  }
  const submit = (e: FormEvent) => {
    e.preventDefault()
    if (!file) return setProblem(t('upload.noFile'))
    if (problem) return
    setProgress(0)
    upload.mutate(
      { file, name, defaultCountry: country || null, onProgress: setProgress },
      { onSuccess: (list) => void navigate(paths.list(list.id)) },
    )
  }

  const codes = upload.error instanceof ApiError ? upload.error.fieldIssues.file?.map((i) => i.code) : undefined
  const help = codes?.find(isFileCode)
  const sorted = [...(countries.data ?? [])]
    .map((c) => ({ code: c.code, name: countryName(lng, c.code) }))
    .sort((a, b) => compareNames(lng)(a.name, b.name))

  return (
    <form onSubmit={submit} noValidate className="space-y-4">
      <p className="text-sm text-slate-700 dark:text-slate-300">
        {t('upload.limits', { mb: formatNumber(lng, limits.maxFileMb), rows: formatNumber(lng, limits.maxRows) })}
      </p>
      <span id={ARIA_PRESS_STYLE_ID} hidden />
      <DropZone
        onDrop={(e) => void onDrop(e.items)}
        className="flex flex-col items-center gap-2 rounded-lg border-2 border-dashed border-slate-300 p-6 text-center text-sm data-[drop-target]:border-brand-600 data-[drop-target]:bg-brand-50 data-[focus-visible]:outline-2 data-[focus-visible]:outline-sky-600 dark:border-slate-600 dark:data-[drop-target]:bg-slate-800"
      >
        <Text slot="label" className="font-medium">
          {file ? t('upload.chosen', { name: file.name, size: formatBytes(lng, file.size) }) : t('upload.drop')}
        </Text>
        <span className="text-slate-600 dark:text-slate-400">{t('upload.or')}</span>
        <FileTrigger acceptedFileTypes={ACCEPTED} onSelect={(files) => choose(files?.[0])}>
          <AriaButton
            className={buttonClass(
              'secondary',
              'touch-pan-x touch-pan-y touch-pinch-zoom data-[focus-visible]:outline-2 data-[focus-visible]:outline-sky-600',
            )}
          >
            {file ? t('upload.change') : t('upload.choose')}
          </AriaButton>
        </FileTrigger>
      </DropZone>
      {problem && <Alert tone="error">{problem}</Alert>}
      <div className="grid gap-4 sm:grid-cols-2">
        <TextField
          label={t('upload.name')}
          hint={t('upload.nameHint')}
          value={name}
          maxLength={100}
          onChange={(e) => setName(e.target.value)}
        />
        <SelectField
          label={t('upload.country')}
          hint={t('upload.countryHint')}
          value={country}
          onChange={(e) => setCountry(e.target.value)}
        >
          <option value="">{t('upload.noCountry')}</option>
          {sorted.map((c) => (
            <option key={c.code} value={c.code}>
              {c.name}
            </option>
          ))}
        </SelectField>
      </div>
      {upload.isPending && (
        <div className="space-y-1">
          <label htmlFor="list-upload-progress" className="text-sm">
            {t('upload.progress', { percent: formatPercent(lng, progress) })}
          </label>
          <progress id="list-upload-progress" max={1} value={progress} className="block h-2 w-full accent-brand-600" />
        </div>
      )}
      {upload.isError && (
        <Alert tone="error">
          <p>{t('upload.failed', { detail: errorMessage(upload.error) })}</p>
          {help && <p className="mt-1">{t(`upload.help.${help}`)}</p>}
        </Alert>
      )}
      <Button type="submit" loading={upload.isPending} disabled={problem !== null}>
        {t('upload.submit')}
      </Button>
    </form>
  )
}
