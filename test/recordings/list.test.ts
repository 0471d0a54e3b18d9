import { describe, expect, it, type SandboxContext } from '../fixture.js';
import { client, OTHER_KEY } from '../helpers.js';

const at = (seconds: number) => new Date(Date.parse('2026-01-01T00:00:00Z') + seconds * 1000).toISOString();

/**
 * Four answered calls ending at 65 s (ai, agent ava), 125 s (agent maria), 185 s (no agent)
 * and 245 s (agent maria), one a minute; and a busy call, which has no recording.
 */
async function fourRecordings({ sandbox, api }: SandboxContext): Promise<string[]> {
  sandbox.network.setBehavior('+14155550124', { agent: 'maria' });
  const calls: string[] = [];
  calls.push((await api.placeCall({ ai_receptionist: true })).body.id);
  await sandbox.advance('1m');
  calls.push((await api.placeCall({ to: '+14155550124' })).body.id);
  await api.placeCall({ to: '+15005550002' });
  await sandbox.advance('1m');
  calls.push((await api.placeCall({ to: '+14155550125' })).body.id);
  await sandbox.advance('1m');
  calls.push((await api.placeCall({ to: '+14155550124' })).body.id);
  await sandbox.advance('5m');
  return calls.map((id) => sandbox.calls.get(id)!.recording_id!);
}

describe('GET /v1/recordings', () => {
  it('lists the account’s recordings newest first, in the list envelope', async ({ sandbox, api }) => {
    const ids = await fourRecordings({ sandbox, api });
    const res = await api.get('/v1/recordings');
    expect(res.status).toBe(200);
    expect(res.body.data.map((r: any) => r.id)).toEqual([...ids].reverse());
    expect(res.body).toMatchObject({ next_cursor: null, has_more: false });
    expect(res.body.data.map((r: any) => r.created_at)).toEqual([at(245), at(185), at(125), at(65)]);
    expect(res.body.data[0]).toMatchObject({ status: 'ready', transcript: { status: 'ready' }, summary: expect.any(String) });
  });

  it('pages with limit and cursor, each recording exactly once', async ({ sandbox, api }) => {
    const ids = await fourRecordings({ sandbox, api });
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res: any = await api.get(`/v1/recordings?limit=3${cursor ? `&cursor=${cursor}` : ''}`);
      seen.push(...res.body.data.map((r: any) => r.id));
      cursor = res.body.next_cursor;
      expect(res.body.has_more).toBe(cursor !== null);
    } while (cursor);
    expect(seen).toEqual([...ids].reverse());
  });

  it('filters by date', async ({ sandbox, api }) => {
    const ids = await fourRecordings({ sandbox, api });
    const after = await api.get(`/v1/recordings?created_after=${at(125)}`);
    expect(after.body.data.map((r: any) => r.id)).toEqual([ids[3], ids[2]]);
    const before = await api.get(`/v1/recordings?created_before=${at(185)}`);
    expect(before.body.data.map((r: any) => r.id)).toEqual([ids[1], ids[0]]);
    const between = await api.get(`/v1/recordings?created_after=${at(65)}&created_before=${at(245)}`);
    expect(between.body.data.map((r: any) => r.id)).toEqual([ids[2], ids[1]]);
  });

  it('filters by agent, call and status', async ({ sandbox, api }) => {
    const ids = await fourRecordings({ sandbox, api });
    expect((await api.get('/v1/recordings?agent=maria')).body.data.map((r: any) => r.id)).toEqual([ids[3], ids[1]]);
    expect((await api.get('/v1/recordings?agent=ava')).body.data.map((r: any) => r.id)).toEqual([ids[0]]);
    expect((await api.get('/v1/recordings?agent=nobody')).body.data).toEqual([]);
    const callId = sandbox.recordings.get(ids[2]!)!.call_id;
    expect((await api.get(`/v1/recordings?call_id=${callId}`)).body.data.map((r: any) => r.id)).toEqual([ids[2]]);
    expect((await api.get('/v1/recordings?agent=maria&limit=1')).body).toMatchObject({ data: [{ id: ids[3] }], has_more: true });

    const live = await api.placeCall();
    await sandbox.advance('70s'); // ended 5 s ago: processing
    const processing = await api.get('/v1/recordings?status=processing');
    expect(processing.body.data.map((r: any) => r.call_id)).toEqual([live.body.id]);
    expect((await api.get('/v1/recordings?status=ready')).body.data).toHaveLength(4);
  });

  it('shows only the caller’s account', async ({ sandbox, api }) => {
    await fourRecordings({ sandbox, api });
    expect((await client(sandbox, OTHER_KEY).get('/v1/recordings')).body).toEqual({ data: [], next_cursor: null, has_more: false });
  });
});

describe('GET /v1/recordings/{id}', () => {
  it('returns one recording with its transcript and summary embedded once ready', async ({ sandbox, api }) => {
    const [id] = await fourRecordings({ sandbox, api });
    const res = await api.get(`/v1/recordings/${id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(sandbox.recordings.get(id!));
    expect(res.body.transcript.id).toBe(res.body.transcript_id);
    expect(res.body.transcript).toEqual((await api.get(`/v1/transcripts/${res.body.transcript_id}`)).body);
  });
});
