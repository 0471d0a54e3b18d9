import { expect, it } from 'vitest';
import { Journal, JOURNAL_LIMIT, type JournalRecord } from './journal.js';

function answer(journal: Journal, i: number, status = 200): JournalRecord {
  const record = journal.open('GET');
  record.requestId = `req_${i}`;
  journal.close(record, status, 0);
  return record;
}

it('hands every answered record it forgets to its forgetting hook, once, so coverage counts requests beyond the window', () => {
  const forgotten: string[] = [];
  const journal = new Journal(JOURNAL_LIMIT, (records) => forgotten.push(...records.map((r) => r.requestId)));
  const total = 3 * JOURNAL_LIMIT + 5;
  for (let i = 0; i < total; i++) answer(journal, i);
  const held = journal.held().map((r) => r.requestId);
  // Each request exactly once: forgotten, or still held.
  expect([...forgotten, ...held]).toEqual(Array.from({ length: total }, (_, i) => `req_${i}`));
  expect(journal.list().map((r) => r.requestId)).toEqual(
    Array.from({ length: JOURNAL_LIMIT }, (_, i) => `req_${total - JOURNAL_LIMIT + i}`),
  );
  // Cut off in batches: it never holds much more than its limit.
  expect(held.length).toBeLessThan(JOURNAL_LIMIT + Math.max(1024, JOURNAL_LIMIT / 4) + 1);
});

it('lists in arrival order: a request still in flight keeps its place without holding back the ones after it', () => {
  const journal = new Journal(10);
  const slow = journal.open('POST');
  slow.requestId = 'req_slow';
  answer(journal, 1, 429);
  answer(journal, 2, 429);
  expect(journal.list().map((r) => r.requestId)).toEqual(['req_1', 'req_2']);
  journal.close(slow, 201, 5);
  expect(journal.list().map((r) => [r.requestId, r.status])).toEqual([
    ['req_slow', 201],
    ['req_1', 429],
    ['req_2', 429],
  ]);
  expect(journal.list()[0]!.entry()).toMatchObject({ requestId: 'req_slow', at: '1970-01-01T00:00:00.005Z' });
});

it('a request forgotten while still in flight is handed over when it is answered, once', () => {
  const forgotten: string[] = [];
  const journal = new Journal(3, (records) => forgotten.push(...records.map((r) => r.requestId)));
  const slow = journal.open('POST');
  slow.requestId = 'req_slow';
  for (let i = 0; i < 2000; i++) answer(journal, i);
  expect(forgotten).not.toContain('req_slow');
  journal.close(slow, 201, 0);
  expect(forgotten.filter((id) => id === 'req_slow')).toHaveLength(1);
  for (let i = 2000; i < 4000; i++) answer(journal, i);
  expect(forgotten.filter((id) => id === 'req_slow')).toHaveLength(1);
  expect(journal.list()).toHaveLength(3);
});

it('a limit of 0 lists nothing and forgets every request as it is answered', () => {
  const forgotten: string[] = [];
  const journal = new Journal(0, (records) => forgotten.push(...records.map((r) => r.requestId)));
  for (let i = 0; i < 3000; i++) answer(journal, i);
  expect(journal.list()).toEqual([]);
  expect([...forgotten, ...journal.held().map((r) => r.requestId)]).toHaveLength(3000);
});
