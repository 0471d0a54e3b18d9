import { Cursors, listOf, type ListBody } from '../../api/pagination.js';
import type { EventPositions } from '../../scripting/events.js';
import type { DeliveryPages } from '../../scripting/webhooks.js';
import { SandboxError } from '../../core/errors.js';
import { integer, object, optional, string, type Infer, type JsonSchema, type Schema } from '../../core/schema.js';

/**
 * Pagination of the control API's lists (`GET /__sandbox/sessions`, `.../events`,
 * `.../deliveries`, `.../dead-letters`, `.../keys`, `.../calls`), shaped as `/v1`'s
 * (docs/pagination.md): `limit` 1 to 200 (default 50), an opaque signed `cursor`, and
 * `{data, next_cursor, has_more}`. Each list keeps its own order: the event log, deliveries,
 * dead letters, keys and sessions oldest first, calls newest first (docs/server.md,
 * "Control lists").
 */

const pageQuery = object(
  {
    limit: optional(integer({ description: 'Items per page (default 50).', min: 1, max: 200, fromQuery: true })),
    cursor: optional(string({ description: 'The next_cursor of the previous page.', max: 200 })),
  },
  { description: 'A page of a control list.', label: 'query parameter' },
);

/** Signs the control lists' cursors; a cursor names its list and session, so another's is refused. */
const cursors = new Cursors('svc-sandbox:control');

export interface PageRequest {
  limit: number;
  /** The position after which the page starts (0: the start), and the id of the item there. */
  after: number;
  afterId: string | null;
}

/** A page's `limit` and `cursor`, as the route's `query` schema ({@link pageParameters}) parsed them. */
export type PageQuery = Infer<typeof pageQuery>;

/** Where a page starts: a cursor that is not one of this list's is a 400 naming it, as on `/v1`. */
export function pageRequest(query: PageQuery | undefined, list: string, scope: string): PageRequest {
  const parsed = query ?? {};
  if (parsed.cursor === undefined) return { limit: parsed.limit ?? 50, after: 0, afterId: null };
  let after: number;
  try {
    after = cursors.decode(list, scope, parsed.cursor);
  } catch {
    throw badCursor(); // /v1's refusal, as the control API's error
  }
  return { limit: parsed.limit ?? 50, after, afterId: parsed.cursor.split('.')[1] ?? '' };
}

function badCursor(): SandboxError {
  return new SandboxError(
    '`cursor` is not a cursor of this list: pass the next_cursor of the previous page unchanged (cursors from before a reset are refused).',
    {
      code: 'invalid_parameter',
      param: 'cursor',
    },
  );
}

function body<T>(list: string, scope: string, data: T[], last: number, lastId: string, more: boolean): ListBody<T> {
  return { data, next_cursor: more ? cursors.encode(list, scope, last, lastId) : null, has_more: more };
}

/**
 * A page of the event log, oldest first: read from the log by position, so it costs `limit`
 * at any length of the log. A cursor from before a reset names an event the log no longer
 * holds there: 400.
 */
export function eventPage(log: EventPositions, query: PageQuery | undefined, scope: string): ListBody<unknown> {
  const page = pageRequest(query, 'events', scope);
  if (page.afterId !== null && log.after(page.after - 1, 1)[0]?.id !== page.afterId) throw badCursor();
  const events = log.after(page.after, page.limit);
  const last = page.after + events.length;
  return body('events', scope, [...events], last, events[events.length - 1]?.id ?? '', last < log.length);
}

/**
 * A page of webhook deliveries (all, or the dead letters), oldest first, read by position:
 * it costs the page (plus the deliveries the dead-letter filter skips). A cursor names a
 * delivery position; one from before a reset names another delivery or none: 400.
 */
export function deliveryPage(pages: DeliveryPages, dead: boolean, query: PageQuery | undefined, scope: string): ListBody<unknown> {
  const list = dead ? 'dead-letters' : 'deliveries';
  const page = pageRequest(query, list, scope);
  if (page.afterId !== null && pages.idAt(page.after) !== page.afterId) throw badCursor();
  const { items, last, more } = pages.page(page.after, page.limit, dead);
  return body(list, scope, items, last, items[items.length - 1]?.id ?? '', more);
}

/**
 * A page of a list the server reads whole (keys, sessions, calls),
 * in that list's order. The cursor names the last item served: the next page starts after it
 * wherever it now stands; if it has left the list (a revoked key, a deleted session) the page starts at the position it had.
 */
export function slicePage<T>(
  items: readonly T[],
  idOf: (item: T) => string,
  query: PageQuery | undefined,
  list: string,
  scope: string,
): ListBody<T> {
  const page = pageRequest(query, list, scope);
  let start = Math.min(page.after, items.length);
  const previous = start === 0 ? undefined : items[start - 1];
  if (page.afterId !== null && (previous === undefined || idOf(previous) !== page.afterId)) {
    const at = items.findIndex((item) => idOf(item) === page.afterId);
    if (at !== -1) start = at + 1;
  }
  const data = items.slice(start, start + page.limit);
  const last = start + data.length;
  const lastItem = data[data.length - 1];
  return body(list, scope, data, last, lastItem === undefined ? '' : idOf(lastItem), last < items.length);
}

/** The response schema of a paginated control list: `/v1`'s list envelope around `items`. */
export function pageOf(items: Schema<unknown>): JsonSchema {
  return listOf(items);
}

/** The query parameters of a paginated control list, for the OpenAPI document. */
export const pageParameters = pageQuery;
