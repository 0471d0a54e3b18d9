import type { Collection, StoredItem } from '../core/collection.js';
import { keyedTag, sameTag } from '../core/mac.js';
import { badRequest } from './errors.js';
import { dateTime, integer, object, optional, string, type JsonSchema, type ObjectOf, type Schema } from '../core/schema.js';

/** The list envelope of the spec. */
export interface ListBody<J> {
  data: J[];
  next_cursor: string | null;
  has_more: boolean;
}

/** The JSON Schema of the list envelope around `items` (the spec's shared List response shape). */
export function listOf(items: { openapi(): JsonSchema } | JsonSchema): JsonSchema {
  const item = typeof items.openapi === 'function' ? (items as { openapi(): JsonSchema }).openapi() : (items as JsonSchema);
  return {
    type: 'object',
    additionalProperties: false,
    required: ['data', 'next_cursor', 'has_more'],
    properties: {
      data: { type: 'array', items: item },
      next_cursor: { type: ['string', 'null'], description: 'Pass it as `cursor` for the next page; null at the end of the list.' },
      has_more: { type: 'boolean', description: 'Whether another page follows.' },
    },
  };
}

/** Query parameters every list accepts (docs/pagination.md); a list adds its own filters beside them. */
const LIST_PARAMS = {
  limit: optional(integer({ description: 'Items per page (default 50).', min: 1, max: 200, fromQuery: true })),
  cursor: optional(string({ description: 'The next_cursor of the previous page.', max: 200 })),
  created_after: optional(
    dateTime(
      'Only items created strictly after this instant: an ISO 8601 date (2026-01-01, midnight UTC) or date-time (UTC without an offset).',
    ),
  ),
  created_before: optional(
    dateTime(
      'Only items created strictly before this instant: an ISO 8601 date (2026-01-01, midnight UTC) or date-time (UTC without an offset).',
    ),
  ),
};

type Shape = Record<string, Schema<unknown>>;

/** The query schema of one list: the shared parameters plus `filters` (and checks across them). */
export function listQuery<S extends Shape>(filters: S, description: string, check?: (query: ObjectOf<typeof LIST_PARAMS & S>) => void) {
  return object({ ...LIST_PARAMS, ...filters }, { description, label: 'query parameter', ...(check ? { check } : {}) });
}

/**
 * Cursors are opaque to clients: the position (`seq` of the last item served) and that
 * item's id, signed with a key derived from the seed, bound to the list and the account. A
 * forged cursor, or one from another list or account, fails the signature check: 400, never
 * someone else's data. They stay valid while new items arrive, because positions never move.
 * A cursor from before a `reset()` names a position the reset world has not reached, or one
 * that holds another item: 400 too. A fresh and a reset sandbox that
 * replay the same requests hand out the same cursors, byte for byte.
 */
export class Cursors {
  constructor(private readonly secret: string) {}

  private sign(list: string, account: string, seq: number, id: string): Buffer {
    return keyedTag(this.secret, `${list}\n${account}\n${seq}\n${id}`, 12);
  }

  encode(list: string, account: string, seq: number, id = ''): string {
    return `${seq.toString(36)}.${id}.${this.sign(list, account, seq, id).toString('base64url')}`;
  }

  /** The position a cursor names; `collection` (when the list is one) checks the position is of this world. */
  decode(list: string, account: string, cursor: string, collection?: Collection<StoredItem>): number {
    const [position, id = '', mac, extra] = cursor.split('.');
    const seq = position && /^[0-9a-z]{1,11}$/.test(position) ? parseInt(position, 36) : NaN;
    const given = mac ? Buffer.from(mac, 'base64url') : Buffer.alloc(0);
    const valid =
      extra === undefined &&
      Number.isSafeInteger(seq) &&
      /^[0-9A-Za-z_]{0,40}$/.test(id) &&
      sameTag(given, this.sign(list, account, seq, id)) &&
      (!collection || (collection.issued(seq) && (collection.atSeq(account, seq)?.id ?? id) === id));
    if (!valid) {
      throw badRequest(
        '`cursor` is not a cursor of this list: pass the next_cursor of the previous page unchanged, with the same API key (cursors from ' +
          'before a reset() are refused).',
        'cursor',
      );
    }
    return seq;
  }
}

export interface ListParams {
  limit?: number;
  cursor?: string;
  created_after?: number;
  created_before?: number;
}

/** Serves one page of `collection` for `account`: the one pagination path every list uses. */
export function paginate<T extends StoredItem, J>(
  cursors: Cursors,
  list: string,
  collection: Collection<T>,
  account: string,
  params: ListParams,
  toJson: (item: T) => J,
  where?: (item: T) => boolean,
): ListBody<J> {
  const page = collection.page(account, {
    limit: params.limit ?? 50,
    beforeSeq: params.cursor === undefined ? undefined : cursors.decode(list, account, params.cursor, collection as Collection<StoredItem>),
    createdAfterMs: params.created_after,
    createdBeforeMs: params.created_before,
    where,
  });
  const last = page.items[page.items.length - 1];
  return {
    data: page.items.map(toJson),
    next_cursor: page.nextSeq === null ? null : cursors.encode(list, account, page.nextSeq, last?.id),
    has_more: page.nextSeq !== null,
  };
}
