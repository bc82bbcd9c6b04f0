/**
 * Times in request bodies and sample rows, read as Feast reads them: Feast makes every time
 * without an offset timezone-aware as UTC (its remote online store even sends them so), where
 * `Date.parse` would take the server's local time, and shift every such row by the server's offset.
 */
const LOCAL_DATE_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?$/

/** Milliseconds since the epoch of an ISO 8601 date-time, UTC when it has no offset; NaN when it is not one. */
export function utcInstant (value: string): number {
  return Date.parse(LOCAL_DATE_TIME.test(value) ? `${value.replace(' ', 'T')}Z` : value)
}
