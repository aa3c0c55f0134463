import { Tab, TabGroup, TabList, TabPanel, TabPanels } from '@headlessui/react'
import { useTranslation } from 'react-i18next'
import { Link } from 'react-router'
import { Button } from '@/components/ui/button'
import { CopyButton } from '@/components/ui/copy-button'
import { Dialog } from '@/components/ui/dialog'
import { env } from '@/config/env'
import { paths } from '@/config/paths'
import { curlSnippet, javascriptSnippet, KEY_VARIABLE, pythonSnippet, type SnippetInput } from '../api-snippets'
import { previewQuery, type SearchFilters } from '@/domain/search-filters'

const LANGUAGES = [
  { id: 'curl', name: 'curl', render: curlSnippet },
  { id: 'javascript', name: 'JavaScript', render: javascriptSnippet },
  { id: 'python', name: 'Python', render: pythonSnippet },
] as const

/** "Use in the API": the current search as the requests a program sends, in three languages. */
export function ApiSnippetsDialog({ filters, onClose }: { filters: SearchFilters; onClose: () => void }) {
  const { t } = useTranslation('search')
  const input: SnippetInput = {
    baseUrl: env.VITE_API_BASE_URL || window.location.origin,
    query: previewQuery(filters),
    format: filters.format,
    cap: filters.cap,
  }
  return (
    <Dialog
      open
      onClose={onClose}
      size="lg"
      title={t('api.title')}
      description={t('api.intro', { variable: KEY_VARIABLE })}
      actions={<Button onClick={onClose}>{t('api.close')}</Button>}
    >
      <TabGroup>
        <TabList aria-label={t('api.languages')} className="flex gap-1 border-b border-slate-200 dark:border-slate-700">
          {LANGUAGES.map((l) => (
            <Tab
              key={l.id}
              className="-mb-px min-h-10 rounded-t-md border border-transparent px-3 py-2 text-sm font-medium text-slate-700 data-[selected]:border-slate-200 data-[selected]:border-b-white data-[selected]:bg-white data-[selected]:text-brand-700 dark:text-slate-300 dark:data-[selected]:border-slate-700 dark:data-[selected]:border-b-slate-900 dark:data-[selected]:bg-slate-900 dark:data-[selected]:text-brand-300"
            >
              {l.name}
            </Tab>
          ))}
        </TabList>
        <TabPanels className="mt-3">
          {LANGUAGES.map((l) => {
            const code = l.render(input)
            return (
              <TabPanel key={l.id} className="space-y-2">
                <pre
                  dir="ltr"
                  aria-label={t('api.codeLabel', { language: l.name })}
                  // eslint-disable-next-line jsx-a11y/no-noninteractive-tabindex -- scrollable region must be reachable by keyboard
                  tabIndex={0}
                  className="max-h-80 overflow-auto rounded-md bg-slate-900 p-3 text-start font-mono text-xs text-slate-100"
                >
                  <code data-language={l.id}>{code}</code>
                </pre>
                <CopyButton
                  text={code}
                  label={t('api.copy', { language: l.name })}
                  copiedText={t('api.copied')}
                  failedText={t('api.copyFailed')}
                />
              </TabPanel>
            )
          })}
        </TabPanels>
      </TabGroup>
      <p className="mt-4 text-sm text-slate-600 dark:text-slate-400">
        {t('api.charges')}{' '}
        <Link to={paths.apiKeys} className="font-medium text-brand-700 underline dark:text-brand-300">
          {t('api.keys')}
        </Link>
      </p>
    </Dialog>
  )
}
