import { useMutation, useQueryClient } from '@tanstack/react-query'
import { ApiError, buildUrl, CLIENT_CODES } from '@/lib/api-client'
import { listDetailSchema, type ListDetail } from './get-list'
import { listKeys } from './keys'
import { failure, withToken } from './with-token'

export interface UploadListInput {
  file: File
  /** Empty: the service names the list after the file. */
  name: string
  /** The country of phone numbers written without one (two letters), or null. */
  defaultCountry: string | null
  /** The share of the file sent so far, from 0 to 1. */
  onProgress?: (sent: number) => void
}

interface XhrAnswer {
  status: number
  text: string
}

/** fetch() cannot tell how much of a body it has sent; XMLHttpRequest's upload events can. */
function send(form: FormData, authorization: string, requestId: string, onProgress?: (sent: number) => void): Promise<XhrAnswer> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest()
    xhr.open('POST', buildUrl('/api/lists/'))
    xhr.setRequestHeader('Authorization', authorization)
    xhr.setRequestHeader('Accept', 'application/json')
    xhr.setRequestHeader('X-Request-ID', requestId)
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable && e.total > 0) onProgress?.(e.loaded / e.total)
    }
    xhr.onload = () => resolve({ status: xhr.status, text: xhr.responseText })
    xhr.onerror = () => reject(new TypeError('Network request failed'))
    xhr.send(form)
  })
}

/**
 * 201: the list with the mapping the service proposes; it waits for the person to confirm it. Each
 * problem of the file is a 400 whose `error_codes.file` says which (empty, no header, too many rows…).
 */
export async function uploadList(input: UploadListInput): Promise<ListDetail> {
  const form = new FormData()
  if (input.name.trim()) form.append('name', input.name.trim())
  if (input.defaultCountry) form.append('default_country', input.defaultCountry)
  form.append('file', input.file)
  const requestId = crypto.randomUUID()
  const answer = await withToken((authorization) => send(form, authorization, requestId, input.onProgress))
  if (answer.status < 200 || answer.status >= 300) throw await failure(answer.status, answer.text, requestId)
  let parsed: ReturnType<ReturnType<typeof listDetailSchema>['safeParse']> | undefined
  try {
    parsed = listDetailSchema().safeParse(JSON.parse(answer.text))
  } catch {
    parsed = undefined
  }
  if (!parsed?.success) {
    throw new ApiError(
      answer.status,
      { detail: 'The service answered in an unexpected shape.', code: CLIENT_CODES.invalidResponse },
      { requestId },
    )
  }
  return parsed.data
}

export function useUploadList() {
  const qc = useQueryClient()
  return useMutation({
    mutationFn: uploadList,
    onSuccess: (list) => {
      qc.setQueryData(listKeys.detail(list.id), list)
      return qc.invalidateQueries({ queryKey: listKeys.index() })
    },
  })
}
