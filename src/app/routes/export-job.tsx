import { useParams } from 'react-router'
import { ExportJob } from '@/features/exports/components/export-job'

/** /exports/:searchId: its own address, so a reload or a reopened tab picks up where it was. */
export function Component() {
  const { searchId = '' } = useParams()
  return (
    <main className="mx-auto w-full max-w-3xl p-4 sm:p-6">
      <ExportJob key={searchId} searchId={searchId} />
    </main>
  )
}
