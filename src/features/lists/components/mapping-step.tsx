import { useState, type FormEvent } from 'react'
import { useTranslation } from 'react-i18next'
import { canMatch, LIST_FIELDS, useConfirmMapping, type ListField, type Mapping } from '@/api/lists/confirm-mapping'
import type { ListDetail } from '@/api/lists/get-list'
import { Alert } from '@/components/ui/alert'
import { Button } from '@/components/ui/button'
import { Card } from '@/components/ui/card'
import { SelectField } from '@/components/ui/field'
import { ApiError } from '@/lib/api-client'
import { errorMessage } from '@/lib/error-message'

const DELIMITERS: Record<string, 'comma' | 'semicolon' | 'tab' | 'pipe'> = { ',': 'comma', ';': 'semicolon', '\t': 'tab', '|': 'pipe' }

/** The mapping the person last confirmed, else the one the service proposed from the headers. */
function initialMapping(list: ListDetail): Mapping {
  const source = list.mapping ?? list.proposed_mapping
  return Object.fromEntries(LIST_FIELDS.flatMap((f) => (typeof source[f] === 'number' ? [[f, source[f]]] : [])))
}

/** The first rows as the service read them, and a column per field, pre-filled from its proposal. */
export function MappingStep({ list }: { list: ListDetail }) {
  const { t } = useTranslation('lists')
  const confirm = useConfirmMapping(list.id)
  const [mapping, setMapping] = useState<Mapping>(() => initialMapping(list))
  const [incomplete, setIncomplete] = useState(false)

  const setField = (field: ListField, value: string) => {
    setIncomplete(false)
    setMapping((m) => {
      const { [field]: _, ...rest } = m
      return value === '' ? rest : { ...rest, [field]: Number(value) }
    })
  }
  const submit = (e: FormEvent) => {
    e.preventDefault()
    if (!canMatch(mapping)) return setIncomplete(true)
    confirm.mutate(mapping)
  }

  const fieldErrors = confirm.error instanceof ApiError && confirm.error.status === 400 ? confirm.error.fieldErrors : {}
  const { mapping: wholeMappingErrors, ...perField } = fieldErrors
  const delimiter = list.delimiter ? DELIMITERS[list.delimiter] : undefined

  return (
    <Card title={t('mapping.title')}>
      <form onSubmit={submit} noValidate className="space-y-4">
        <p className="text-sm text-slate-700 dark:text-slate-300">{t('mapping.intro')}</p>
        <p className="text-sm text-slate-600 dark:text-slate-400">
          {list.file_type === 'xlsx'
            ? t('mapping.detectedXlsx')
            : t('mapping.detected', {
                encoding: (list.encoding ?? 'utf-8').toUpperCase(),
                delimiter: delimiter ? t(`mapping.delimiters.${delimiter}`) : (list.delimiter ?? ''),
              })}
        </p>
        <PreviewTable list={list} />
        <p className="rounded-md bg-slate-100 px-3 py-2 text-sm dark:bg-slate-800">{t('mapping.rule')}</p>
        <div className="grid gap-4 sm:grid-cols-2 lg:grid-cols-4">
          {LIST_FIELDS.map((field) => (
            <SelectField
              key={field}
              label={t(`mapping.fields.${field}`)}
              value={mapping[field] === undefined ? '' : String(mapping[field])}
              error={perField[`mapping.${field}`]?.join(' ')}
              onChange={(e) => setField(field, e.target.value)}
            >
              <option value="">{t('mapping.notInFile')}</option>
              {list.headers.map((h, i) => (
                <option key={i} value={i}>
                  {h || `#${i + 1}`}
                </option>
              ))}
            </SelectField>
          ))}
        </div>
        {incomplete && <Alert tone="error">{t('mapping.incomplete')}</Alert>}
        {wholeMappingErrors && <Alert tone="error">{wholeMappingErrors.join(' ')}</Alert>}
        {confirm.isError && Object.keys(fieldErrors).length === 0 && (
          <Alert tone="error">{t('mapping.failed', { detail: errorMessage(confirm.error) })}</Alert>
        )}
        <Button type="submit" loading={confirm.isPending}>
          {t('mapping.submit')}
        </Button>
      </form>
    </Card>
  )
}

function PreviewTable({ list }: { list: ListDetail }) {
  const { t } = useTranslation('lists')
  return (
    <div
      role="region"
      aria-label={t('mapping.previewLabel')}
      // eslint-disable-next-line jsx-a11y/no-noninteractive-tabindex -- a scrollable region must be reachable by keyboard
      tabIndex={0}
      className="overflow-x-auto rounded-md border border-slate-200 focus-visible:outline-2 focus-visible:outline-sky-600 dark:border-slate-700"
    >
      <table className="w-full text-start text-xs">
        <caption className="sr-only">{t('mapping.previewLabel')}</caption>
        <thead className="bg-slate-50 dark:bg-slate-800">
          <tr>
            {list.headers.map((h, i) => (
              <th key={i} scope="col" className="whitespace-nowrap px-2 py-1.5 text-start font-semibold">
                <bdi>{h}</bdi>
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {list.preview.map((row) => (
            <tr key={row.row_no} className="border-t border-slate-100 dark:border-slate-800">
              {list.headers.map((_, i) => (
                <td key={i} className="max-w-56 truncate px-2 py-1.5">
                  <bdi>{row.cells[i] ?? ''}</bdi>
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}
