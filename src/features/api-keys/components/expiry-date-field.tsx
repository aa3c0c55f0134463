import { GregorianCalendar, getLocalTimeZone, parseDate, toCalendar, today, type DateValue } from '@internationalized/date'
import { useRef, type ReactNode } from 'react'
import {
  Button,
  Calendar,
  CalendarCell,
  CalendarGrid,
  DateInput,
  DatePicker,
  DateSegment,
  Dialog,
  FieldError,
  Group,
  Heading,
  I18nProvider,
  Label,
  Popover,
  Text,
} from 'react-aria-components'

/**
 * React Aria's buttons and calendar days ask the browser not to wait for a double-tap zoom
 * (`touch-action`) through a `<style>` element they add to the page, unless an element with this id
 * is there already; the dashboard's CSP (`style-src 'self'`, server/src/static.ts) refuses inline
 * styles, so that element would be blocked and reported. The field holds the id on a hidden span
 * instead, and each pressable part carries the same rule as classes from the stylesheet
 * (`touch-pan-x touch-pan-y touch-pinch-zoom`).
 */
const ARIA_PRESS_STYLE_ID = 'react-aria-pressable-style'

/** "2026-12-31" ↔ a date value; anything else is no date. */
const toValue = (v: string): DateValue | null => {
  try {
    return /^\d{4}-\d{2}-\d{2}$/.test(v) ? parseDate(v) : null
  } catch {
    return null
  }
}

/**
 * The key's expiry day, typed or picked in the dashboard's language (issue 10): the segments follow
 * the language's date order (31.12.2027 in German, 12/31/2027 in English), the calendar names its
 * months in that language (and counts Thai years in the Buddhist era, as Thai readers expect), and
 * every part works by keyboard (arrows, digits, PageUp/PageDown) and announces itself (React Aria).
 * The value is an ISO day ("2027-12-31") in the Gregorian calendar whatever the display.
 */
export function ExpiryDateField({
  value,
  onChange,
  onBlur,
  language,
  label,
  hint,
  error,
}: {
  value: string
  onChange: (iso: string) => void
  onBlur: () => void
  language: string
  label: string
  hint: ReactNode
  error: string | undefined
}) {
  const now = today(getLocalTimeZone())
  const group = useRef<HTMLDivElement>(null)
  // React Aria reports no value while the date is half typed ("03/__/____"): that is not "no expiry",
  // so the form gets a value its schema refuses ("Enter a valid date.") instead of an empty one
  const partial = () => Boolean(group.current?.querySelector('[role="spinbutton"]:not([data-placeholder])'))
  const report = (d: DateValue | null) => onChange(d ? toCalendar(d, new GregorianCalendar()).toString() : partial() ? 'incomplete' : '')
  return (
    <I18nProvider locale={language}>
      <span id={ARIA_PRESS_STYLE_ID} hidden />
      <DatePicker
        className="max-w-xs"
        value={toValue(value)}
        placeholderValue={now}
        minValue={now}
        granularity="day"
        isInvalid={Boolean(error)}
        // the form validates (past days, the service's answer) and says why; React Aria only marks the field
        validationBehavior="aria"
        onChange={report}
        onBlur={() => {
          if (!toValue(value)) report(null)
          onBlur()
        }}
        shouldForceLeadingZeros
      >
        <Label className="mb-1 block text-sm font-medium">{label}</Label>
        <Group
          ref={group}
          className="flex w-full items-center rounded-md border border-slate-300 bg-white shadow-xs focus-within:outline-2 focus-within:outline-offset-2 focus-within:outline-sky-600 data-[invalid]:border-red-600 dark:border-slate-600 dark:bg-slate-900"
        >
          {/* numeric dates read left to right, day first, in Hebrew too (25.12.2026) */}
          <DateInput className="flex flex-1 px-3 py-2 text-sm text-slate-900 [direction:ltr] dark:text-slate-100">
            {(segment) => (
              <DateSegment
                segment={segment}
                className="rounded-sm px-0.5 tabular-nums outline-none focus:bg-sky-700 focus:text-white data-[placeholder]:text-slate-500 dark:data-[placeholder]:text-slate-400"
              />
            )}
          </DateInput>
          <Button className="me-1 touch-pan-x touch-pan-y touch-pinch-zoom rounded p-1.5 text-slate-700 hover:bg-slate-100 focus-visible:outline-2 focus-visible:outline-sky-600 dark:text-slate-200 dark:hover:bg-slate-800">
            <svg aria-hidden="true" viewBox="0 0 20 20" className="size-4" fill="currentColor">
              <path d="M6 2a1 1 0 0 1 1 1v1h6V3a1 1 0 1 1 2 0v1h1a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2H4a2 2 0 0 1-2-2V6a2 2 0 0 1 2-2h1V3a1 1 0 0 1 1-1Zm10 6H4v8h12V8Z" />
            </svg>
          </Button>
        </Group>
        <Text slot="description" className="mt-1 block text-xs text-slate-600 dark:text-slate-400">
          {hint}
        </Text>
        <FieldError className="mt-1 block text-sm text-red-700 dark:text-red-400">{error}</FieldError>
        <Popover className="rounded-md border border-slate-200 bg-white p-3 shadow-lg dark:border-slate-700 dark:bg-slate-900">
          <Dialog className="outline-none">
            <Calendar className="text-sm">
              <header className="mb-2 flex items-center justify-between gap-2">
                <MonthButton slot="previous" arrow="‹" />
                <Heading className="font-semibold" />
                <MonthButton slot="next" arrow="›" />
              </header>
              <CalendarGrid className="border-separate border-spacing-0.5">
                {(date) => (
                  <CalendarCell
                    date={date}
                    className="flex size-8 touch-pan-x touch-pan-y touch-pinch-zoom items-center justify-center rounded tabular-nums outline-none hover:bg-slate-100 data-[disabled]:text-slate-400 data-[focus-visible]:outline-2 data-[focus-visible]:outline-sky-600 data-[focused]:ring-2 data-[focused]:ring-sky-600 data-[outside-month]:hidden data-[selected]:bg-sky-700 data-[selected]:text-white dark:hover:bg-slate-800 dark:data-[disabled]:text-slate-500"
                  />
                )}
              </CalendarGrid>
            </Calendar>
          </Dialog>
        </Popover>
      </DatePicker>
    </I18nProvider>
  )
}

/** The calendar's previous/next month button (React Aria names it in the language); the arrow turns in right-to-left. */
function MonthButton({ slot, arrow }: { slot: 'previous' | 'next'; arrow: string }) {
  return (
    <Button slot={slot} className="touch-pan-x touch-pan-y touch-pinch-zoom rounded px-2 py-1 hover:bg-slate-100 dark:hover:bg-slate-800">
      <span aria-hidden="true" className="inline-block rtl:rotate-180">
        {arrow}
      </span>
    </Button>
  )
}
