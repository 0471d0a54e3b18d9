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

it('finds requests by id with the request listed before each, as the listing would say, reading only from the newest down to them', () => {
  const journal = new Journal(100);
  for (let i = 0; i < 50; i++) answer(journal, i);
  const slow = journal.open('POST');
  slow.requestId = 'req_slow';
  answer(journal, 50);
  journal.close(slow, 201, 0);
  answer(journal, 51);
  const listed = journal.list().map((r) => r.requestId);
  const found = journal.find(new Set(['req_slow', 'req_50', 'req_0', 'req_missing']));
  const expected = (id: string) => listed[listed.indexOf(id) - 1] ?? null;
  expect([...found.keys()].sort()).toEqual(['req_0', 'req_50', 'req_slow']);
  for (const [id, hit] of found) {
    expect(hit.entry).toEqual(journal.list()[listed.indexOf(id)]!.entry());
    expect(hit.after, id).toBe(expected(id));
  }
  // The newest two: found reading them and the one below the older, not the 47 below that.
  const read = new Set<string>();
  const newest = new Journal(100);
  for (let i = 0; i < 50; i++) answer(newest, i);
  for (const record of newest.held()) {
    const { requestId } = record;
    Object.defineProperty(record, 'requestId', {
      get: () => {
        read.add(requestId);
        return requestId;
      },
    });
  }
  expect([...newest.find(new Set(['req_49', 'req_48'])).values()].map((h) => h.after)).toEqual(['req_48', 'req_47']);
  expect([...read].sort()).toEqual(['req_47', 'req_48', 'req_49']);
});
