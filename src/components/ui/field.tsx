import { forwardRef, useId, type InputHTMLAttributes, type ReactNode, type SelectHTMLAttributes } from 'react'

const inputClass =
  'block w-full rounded-md border border-slate-300 bg-white px-3 py-2 text-sm text-slate-900 shadow-xs placeholder:text-slate-500 aria-[invalid=true]:border-red-600 dark:border-slate-600 dark:bg-slate-900 dark:text-slate-100 dark:placeholder:text-slate-400'

interface FieldChrome {
  label: ReactNode
  /** Message shown under the field and linked with aria-describedby; marks the field invalid. */
  error?: string | undefined
  hint?: ReactNode
}

interface ControlProps {
  id: string
  'aria-invalid': true | undefined
  'aria-describedby': string | undefined
  className: string
}

/** Label, hint and error around one control, wired for screen readers. */
function Field({
  label,
  error,
  hint,
  id,
  className,
  children,
}: FieldChrome & { id: string | undefined; className: string; children: (control: ControlProps) => ReactNode }) {
  const autoId = useId()
  const controlId = id ?? autoId
  const hintId = hint ? `${controlId}-hint` : undefined
  const errorId = error ? `${controlId}-error` : undefined
  return (
    <div className={className}>
      <label htmlFor={controlId} className="mb-1 block text-sm font-medium">
        {label}
      </label>
      {children({
        id: controlId,
        'aria-invalid': error ? true : undefined,
        'aria-describedby': [hintId, errorId].filter(Boolean).join(' ') || undefined,
        className: inputClass,
      })}
      {hint && (
        <p id={hintId} className="mt-1 text-xs text-slate-600 dark:text-slate-400">
          {hint}
        </p>
      )}
      {error && (
        <p id={errorId} className="mt-1 text-sm text-red-700 dark:text-red-400">
          {error}
        </p>
      )}
    </div>
  )
}

/** A labelled text input for react-hook-form (`{...register('email')}`), with error and hint wired for screen readers. */
export const TextField = forwardRef<HTMLInputElement, FieldChrome & InputHTMLAttributes<HTMLInputElement>>(function TextField(
  { label, error, hint, id, className = '', ...rest },
  ref,
) {
  return (
    <Field label={label} error={error} hint={hint} id={id} className={className}>
      {(control) => <input ref={ref} {...control} {...rest} />}
    </Field>
  )
})

export const SelectField = forwardRef<HTMLSelectElement, FieldChrome & SelectHTMLAttributes<HTMLSelectElement>>(function SelectField(
  { label, error, hint, id, className = '', children, ...rest },
  ref,
) {
  return (
    <Field label={label} error={error} hint={hint} id={id} className={className}>
      {(control) => (
        <select ref={ref} {...control} {...rest}>
          {children}
        </select>
      )}
    </Field>
  )
})

export { inputClass }
