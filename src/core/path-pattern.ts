/**
 * Paths with `{name}` placeholders (`/v1/calls/{id}`): the router's matching, shared with
 * fault rules, which must match exactly the requests the router would route there.
 */

/** The segments of a path, a trailing slash ignored: `/v1/calls/` → `['v1', 'calls']`. */
export function segmentsOf(path: string): string[] {
  if (path.length <= 1) return [];
  const end = path.charCodeAt(path.length - 1) === 47 ? path.length - 1 : path.length;
  return path.slice(1, end).split('/');
}

/** Whether `actual` fits `pattern`, where a `{name}` segment stands for any non-empty one. */
export function fitsPattern(pattern: readonly string[], actual: readonly string[]): boolean {
  return pattern.length === actual.length && pattern.every((want, i) => (want.startsWith('{') ? actual[i] !== '' : want === actual[i]));
}

/** A path segment, percent-decoded; a malformed escape is kept as written (then nothing has that id: 404). */
export function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** The methods the API's routes use (HEAD and OPTIONS are answered for every route; see src/api/pipeline.ts). */
export const METHODS = ['GET', 'POST', 'PUT', 'DELETE'] as const;
export type Method = (typeof METHODS)[number];
