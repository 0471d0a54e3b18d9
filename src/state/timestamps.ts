/** An epoch-ms instant as the API writes timestamps (ISO 8601 UTC), or null when it has not happened. */
export function isoOrNull(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}
