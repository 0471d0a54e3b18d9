import { describe, expect, it } from 'vitest';
import { json } from './http.js';

// Regression: the answer of a 6,500-step scenario (8 MB of JSON) was written in one piece after the run, holding the server some 120 ms more.

describe('json: a long answer is written piece by piece', () => {
  const item = (i: number) => ({
    offsetMs: i * 20,
    text: `step ${i} "quoted" \\u2028`,
    more: i % 3 === 0 ? undefined : [i, null, { n: i }],
  });
  const body = {
    name: 'long',
    skipped: undefined,
    timeline: Array.from({ length: 5_000 }, (_, i) => item(i)),
    holes: [1, undefined, () => 2, 'x', ...Array.from({ length: 300 }, (_, i) => i)],
    short: [1, 2, 3],
    failure: null,
  };

  it('in several pieces, whose text is JSON.stringify of the body byte for byte', async () => {
    const response = json(200, body);
    const reader = response.body!.getReader();
    let pieces = 0;
    let text = '';
    const decoder = new TextDecoder();
    for (let read = await reader.read(); !read.done; read = await reader.read()) {
      pieces++;
      text += decoder.decode(read.value, { stream: true });
    }
    expect(pieces).toBeGreaterThan(25);
    expect(text).toBe(JSON.stringify(body));
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
  });

  // Regression: a loopback socket takes megabytes at once, its `drain` in the same turn, so the whole 9 MB answer of a 6,500-step scenario was made and written in one turn of the event loop (0.4-1.8 s of /health and other sessions waiting).
  it('lets the event loop in between two pieces, even to a reader that never waits for I/O', async () => {
    const reader = json(200, body).body!.getReader();
    // Turns of the event loop that ran while the answer was read, and the pieces read before the first of them.
    let turns = 0;
    let piecesBeforeFirstTurn = 0;
    let pieces = 0;
    const tick = () => {
      if (turns++ === 0) piecesBeforeFirstTurn = pieces;
      if (!done) setImmediate(tick);
    };
    let done = false;
    setImmediate(tick);
    // As the server's write loop reads when the socket takes each piece at once: microtasks only.
    for (let read = await reader.read(); !read.done; read = await reader.read()) pieces++;
    done = true;
    expect(piecesBeforeFirstTurn).toBeLessThanOrEqual(2);
    expect(turns).toBeGreaterThanOrEqual(pieces - 1);
  });

  it('a short answer is one piece, as before', async () => {
    const small = { data: [1, 2, 3], next_cursor: null };
    expect(await json(200, small).text()).toBe(JSON.stringify(small));
    expect(json(204, small).body).toBeNull();
  });
});
