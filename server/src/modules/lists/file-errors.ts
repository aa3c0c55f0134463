import { badRequest, type FieldIssue } from '../../lib/errors.ts'

/** A problem of an uploaded file: a 400 whose `file` field error says which (lib/error-codes.ts). */
export class ListFileError extends Error {
  constructor(readonly issue: FieldIssue) {
    super(issue.message)
  }
  toHttp() {
    return badRequest({ file: [this.issue] }, this.issue.message)
  }
}

export const fileError = {
  missing: () => new ListFileError({ code: 'required', message: 'Attach the file in the form part `file`.' }),
  empty: () => new ListFileError({ code: 'file_empty', message: 'The file is empty.' }),
  noHeader: () =>
    new ListFileError({
      code: 'file_no_header',
      message: 'The first row must name the columns (for example Name, City, Website); this one holds data or nothing.',
    }),
  tooManyRows: (limit: number) =>
    new ListFileError({ code: 'file_too_many_rows', message: `The file has more than ${limit} rows.`, params: { limit } }),
  tooLarge: (limitMb: number) =>
    new ListFileError({ code: 'file_too_large', message: `The file is larger than ${limitMb} MB.`, params: { limit: limitMb } }),
  unreadable: (where: string) => new ListFileError({ code: 'file_unreadable', message: `The file cannot be read: ${where}.` }),
  unsupported: () => new ListFileError({ code: 'file_type_unsupported', message: 'Upload a CSV file or an Excel workbook (.xlsx).' }),
}
