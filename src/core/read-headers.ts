/**
 * The request headers the API reads (src/api/pipeline.ts `readHeaders`), and so the only ones a
 * snapshot keeps and may name (src/scripting/snapshot-checks.ts): one list, here, in the layer
 * both may import. Sorted, the order a `Headers` iterates in. A header the API comes to read is
 * added here, and both follow.
 */
export const READ_HEADERS = [
  'accept',
  'access-control-request-headers',
  'authorization',
  'content-length',
  'content-type',
  'last-event-id',
  'origin',
] as const;

/** One of {@link READ_HEADERS}. */
export type ReadHeaderName = (typeof READ_HEADERS)[number];
