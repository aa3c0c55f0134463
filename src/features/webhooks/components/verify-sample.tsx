import { useId, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { CopyButton } from '@/components/ui/copy-button'
import { SAMPLE_LANGUAGES, verifySample, type SampleLanguage } from '../verify-samples'

const LANGUAGE_NAMES: Record<SampleLanguage, string> = { node: 'Node.js', python: 'Python' }

/** How a receiver checks a delivery, in Node.js or Python, to copy. */
export function VerifySample({ signatureHeader }: { signatureHeader: string }) {
  const { t } = useTranslation('webhooks')
  const [language, setLanguage] = useState<SampleLanguage>('node')
  const codeId = useId()
  const code = verifySample(language, signatureHeader)
  const headers = [`${signatureHeader}: t=1767225600,v1=5257a869…`, 'Leads-Event-Id: evt_…', 'Leads-Event-Type: export.completed']
  return (
    <div className="space-y-4">
      <p className="text-sm text-slate-700 dark:text-slate-300">{t('sample.intro')}</p>
      <div>
        <p className="mb-1 text-sm font-medium">{t('sample.headers')}</p>
        <ul className="flex flex-col items-start gap-1 text-xs">
          {headers.map((h) => (
            <li key={h} className="max-w-full">
              <code dir="ltr" className="block break-all rounded bg-slate-200 px-2 py-1 font-mono dark:bg-slate-800">
                {h}
              </code>
            </li>
          ))}
        </ul>
      </div>
      <fieldset>
        <legend className="mb-1 text-sm font-medium">{t('sample.language')}</legend>
        <div className="inline-flex rounded-md border border-slate-300 p-0.5 dark:border-slate-600">
          {SAMPLE_LANGUAGES.map((l) => (
            <label
              key={l}
              className="cursor-pointer rounded px-3 py-1.5 text-sm font-medium has-checked:bg-brand-600 has-checked:text-white has-focus-visible:outline-2 has-focus-visible:outline-offset-2 has-focus-visible:outline-brand-600"
            >
              <input
                type="radio"
                name={`${codeId}-language`}
                value={l}
                checked={language === l}
                onChange={() => setLanguage(l)}
                className="sr-only"
              />
              {LANGUAGE_NAMES[l]}
            </label>
          ))}
        </div>
      </fieldset>
      <div>
        <p id={codeId} className="mb-1 text-sm font-medium">
          {t('sample.code')}
        </p>
        <pre
          aria-labelledby={codeId}
          dir="ltr"
          // eslint-disable-next-line jsx-a11y/no-noninteractive-tabindex -- scrollable region must be reachable by keyboard
          tabIndex={0}
          className="max-h-96 overflow-auto rounded-md bg-slate-900 p-3 text-start font-mono text-xs text-slate-100"
        >
          <code>{code}</code>
        </pre>
        <div className="mt-2">
          <CopyButton
            key={language}
            text={code}
            label={t('sample.copy')}
            copiedText={t('sample.copied')}
            failedText={t('sample.copyFailed')}
          />
        </div>
      </div>
    </div>
  )
}
