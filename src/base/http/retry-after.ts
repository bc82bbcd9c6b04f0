/** Whole seconds, the form servers mostly send (`Retry-After: 5`), spaces around allowed as in a header value. */
const DELAY_SECONDS = /^\s*\d+\s*$/

/** IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`) and the obsolete RFC 850 form (`Sunday, 06-Nov-94 08:49:37 GMT`). */
const GMT_DATE = /^[A-Za-z]{3,9}, \d{2}[ -][A-Za-z]{3}[ -]\d{2}(?:\d{2})? \d{2}:\d{2}:\d{2} GMT$/

/** The obsolete asctime form (`Sun Nov  6 08:49:37 1994`), which names no zone but means GMT. */
const ASCTIME_DATE = /^[A-Za-z]{3} [A-Za-z]{3} [ \d]\d \d{2}:\d{2}:\d{2} \d{4}$/

/**
 * The delay a `Retry-After` header asks for (RFC 9110 10.2.3), in milliseconds: a number of
 * seconds, or an HTTP date counted from `now` (a date already past is 0). `undefined` when the
 * header is absent or is neither form. The date is matched against the three HTTP-date forms
 * before `Date.parse` reads it, because V8 reads almost any text as some date ("soon 2099"
 * would be a wait of decades), and asctime gets its zone added, or it would be read as local time.
 */
export function retryAfterMs (value: string | null, now: number): number | undefined {
  if (value === null) return undefined
  if (DELAY_SECONDS.test(value)) return Number(value) * 1000
  const text = value.trim()
  const date = GMT_DATE.test(text) ? Date.parse(text) : ASCTIME_DATE.test(text) ? Date.parse(`${text} GMT`) : Number.NaN
  return Number.isNaN(date) ? undefined : Math.max(0, date - now)
}
