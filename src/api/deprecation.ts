/** A deprecated `/v1`: when it was deprecated, when it goes away, and its successor's documentation. */
export interface Deprecation {
  dateMs: number;
  sunsetMs: number;
  link: string | null;
}

/**
 * The headers of a deprecated `/v1`, on every answer (docs/api.md, "Deprecation"):
 * `Deprecation` as RFC 9745 writes it (a Structured Field Date, `@` and epoch seconds),
 * `Sunset` as RFC 8594 does (an HTTP-date), and `Link` to the successor version when given.
 */
export function deprecationHeaders(deprecation: Deprecation | null): Array<[string, string]> {
  if (deprecation === null) return [];
  const pairs: Array<[string, string]> = [
    ['deprecation', `@${Math.floor(deprecation.dateMs / 1000)}`],
    ['sunset', new Date(deprecation.sunsetMs).toUTCString()],
  ];
  if (deprecation.link !== null) pairs.push(['link', `<${deprecation.link}>; rel="successor-version"`]);
  return pairs;
}
