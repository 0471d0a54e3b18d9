import { describe, expect, it } from 'vitest';
import { createSandbox } from '../../src/index.js';
import { conformingServer } from '../server/conforming.js';
import { client, FROM, KEY, startSandbox, TO } from '../helpers.js';

// "A step `"at": "2m10s"` is refused": compound durations, largest unit first, wherever a duration is taken.

describe('compound durations in the library', () => {
  it('advance, a behaviour’s ring and talk, and a scenario step’s at take "2m10s" and its kin', async () => {
    const sandbox = startSandbox();
    try {
      sandbox.network.setBehavior(TO, { ring: '1m5s', talk: '1h30m' });
      const call = (await client(sandbox).placeCall()).body;
      await sandbox.advance('1m4s999ms');
      expect(sandbox.calls.get(call.id)?.status).toBe('ringing');
      await sandbox.advance(1);
      expect(sandbox.calls.get(call.id)?.answered_at).toBe('2026-01-01T00:01:05.000Z');
      await sandbox.advance('1h30m');
      expect(sandbox.calls.get(call.id)).toMatchObject({ status: 'completed', duration: 5400 });
      expect(sandbox.now().toISOString()).toBe('2026-01-01T01:31:05.000Z');
    } finally {
      sandbox.close();
    }

    const result = await createSandbox({ seed: 3 }).run({
      name: 'compound at',
      steps: [
        { at: '0s', request: { method: 'POST', path: '/v1/calls', body: { to: TO, from: FROM }, as: 'call' } },
        { at: '2m10s', expect: { resources: [{ path: '/v1/calls/{{call.id}}', fields: { status: 'completed', duration: 60 } }] } },
      ],
    });
    expect(result).toMatchObject({ passed: true, failure: null });
  });

  it('refuses parts out of order, naming the argument and the form to write', async () => {
    const sandbox = createSandbox();
    await expect(sandbox.advance('10s2m')).rejects.toThrow(/"10s2m" is not a duration\..*largest unit first such as '2m10s'/);
    expect(() => sandbox.network.setBehavior(TO, { ring: '1m1m' })).toThrow(/ring.*'2m10s'/);
    expect(sandbox.now().toISOString()).toBe('2026-01-01T00:00:00.000Z');
  });
});

describe('compound durations over the control API', () => {
  const { control, api } = conformingServer(4);

  it('advance takes {"duration": "1h30m"}; a behaviour PUT takes "ring": "1m5s"', async () => {
    expect((await control.put(`/sessions/default/network/${encodeURIComponent(TO)}`, { ring: '1m5s' })).status).toBe(204);
    const call = (await api(KEY).post('/v1/calls', { to: TO, from: FROM })).body;
    const advanced = await control.post('/sessions/default/advance', { duration: '1h30m' });
    expect(advanced.status).toBe(200);
    expect(advanced.body.now).toBe('2026-01-01T01:30:00.000Z');
    expect((await api(KEY).get(`/v1/calls/${call.id}`)).body.answered_at).toBe('2026-01-01T00:01:05.000Z');
  });

  it('a duration out of order is 400 naming the field and the fix, and time stays where it was', async () => {
    const refused = await control.post('/sessions/default/advance', { duration: '30s1m' });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ param: 'duration', message: expect.stringMatching(/largest unit first such as '2m10s'/) });
    expect((await control.get('/sessions')).body.data[0].now).toBe('2026-01-01T00:00:00.000Z');
  });
});
