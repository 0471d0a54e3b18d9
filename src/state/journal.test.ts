import { expect, it } from 'vitest';
import { Journal, JOURNAL_LIMIT, type JournalEntry } from './journal.js';

it('hands the entries a trim drops to its forgetting hook, each once, so coverage counts requests beyond the window', () => {
  const forgotten: JournalEntry[] = [];
  const journal = new Journal((entries) => forgotten.push(...entries));
  const note = (i: number) => ({
    requestId: `req_${i}`,
    template: '/v1/calls',
    target: '/v1/calls',
    code: null,
    message: null,
    apiKey: null,
  });
  for (let i = 0; i < 2 * JOURNAL_LIMIT + 5; i++) journal.record('GET', 200, note(i), 0);
  expect(forgotten.map((e) => e.requestId)).toEqual(Array.from({ length: JOURNAL_LIMIT }, (_, i) => `req_${i}`));
  expect(journal.held()[0]!.requestId).toBe(`req_${JOURNAL_LIMIT}`);
  expect(journal.held()).toHaveLength(JOURNAL_LIMIT + 5);
  expect(journal.list()).toHaveLength(JOURNAL_LIMIT);
});
