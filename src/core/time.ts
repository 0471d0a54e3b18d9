/** An epoch-ms instant as the API writes timestamps (ISO 8601 UTC). */
export function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** `iso(ms)`, or null when it has not happened. */
export function isoOrNull(ms: number | null): string | null {
  return ms === null ? null : iso(ms);
}
