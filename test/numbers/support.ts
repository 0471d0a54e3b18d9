import type { Sandbox } from '../../src/index.js';
import { test as sandboxTest } from '../fixture.js';
import { client, KEY } from '../helpers.js';

/** The helpers client plus the verbs of /v1/numbers and /v1/messages. */
export function numbersClient(sandbox: Sandbox, key: string | null = KEY) {
  const api = client(sandbox, key);
  return {
    ...api,
    put: (path: string, body: unknown) => api.send('PUT', path, body),
    del: (path: string) => api.send('DELETE', path),
    /** Provisions by criteria (default: a local number) and returns the 201 body; fails the test otherwise. */
    async provision(body: Record<string, unknown> = { kind: 'local' }) {
      const res = await api.post('/v1/numbers', body);
      if (res.status !== 201) throw new Error(`provision failed: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body;
    },
    sendMessage: (body: Record<string, unknown>) => api.post('/v1/messages', body),
  };
}

export type NumbersClient = ReturnType<typeof numbersClient>;

/** The sandbox fixtures of ../fixture.ts, with `api` a numbers client. */
export const test = sandboxTest.extend<{ api: NumbersClient }>({
  api: async ({ sandbox }, use) => {
    await use(numbersClient(sandbox));
  },
});

/** Every page of a list (from the cursor `from`, if given), following next_cursor. */
export async function allPages(api: ReturnType<typeof client>, path: string, from: string | null = null): Promise<any[]> {
  const items: any[] = [];
  let cursor: string | null = from;
  do {
    const sep = path.includes('?') ? '&' : '?';
    const res = await api.get(cursor === null ? path : `${path}${sep}cursor=${encodeURIComponent(cursor)}`);
    if (res.status !== 200) throw new Error(`list failed: ${res.status} ${JSON.stringify(res.body)}`);
    items.push(...res.body.data);
    cursor = res.body.next_cursor;
  } while (cursor !== null);
  return items;
}
