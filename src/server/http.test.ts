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

  it('a short answer is one piece, as before', async () => {
    const small = { data: [1, 2, 3], next_cursor: null };
    expect(await json(200, small).text()).toBe(JSON.stringify(small));
    expect(json(204, small).body).toBeNull();
  });
});
