import { vi } from 'vitest';
import type { ConversationLine } from '../../src/index.js';
import { describe, expect, it, type SandboxContext } from '../fixture.js';
import { TO } from '../helpers.js';
import { drain, openWithFetch, openWithHttps } from './sse-client.js';

/** Three timed lines: spoken in full 2 s, 6 s and 10 s after the answer. */
const SCRIPT: ConversationLine[] = [
  { speaker: 'agent', text: 'Northwind, how can I help?', start: 0, end: 2 },
  { speaker: 'customer', text: 'I would like to book an appointment.', start: 3, end: 6 },
  { speaker: 'agent', text: 'You are booked for Monday at 9:30 am.', start: 7, end: 10 },
];

/** A call answered at 5 s that talks 20 s, carrying SCRIPT; returns its transcript id once answered. */
async function liveCall({ sandbox, api }: SandboxContext): Promise<{ callId: string; transcriptId: string }> {
  sandbox.network.setBehavior(TO, { ring: '5s', talk: '20s' });
  const { body } = await api.placeCall();
  sandbox.transcripts.setScript(body.id, SCRIPT);
  await sandbox.advance('5s');
  const call = sandbox.calls.get(body.id)!;
  expect(call.status).toBe('answered');
  return { callId: body.id, transcriptId: call.transcript_id! };
}

const segment = (index: number) => ({
  event: 'segment',
  id: String(index),
  data: { index, speaker: SCRIPT[index]!.speaker, text: SCRIPT[index]!.text, start: SCRIPT[index]!.start, end: SCRIPT[index]!.end },
});

describe('GET /v1/transcripts/{id} with Accept: text/event-stream, while the call is live', () => {
  it('streams each segment at the instant it has been spoken, then `end` when the call ends (fetch)', async ({ sandbox, api }) => {
    const { callId, transcriptId } = await liveCall({ sandbox, api });
    const { res, parser, done } = await openWithFetch(sandbox, transcriptId);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expect(res.headers.get('x-request-id')).toMatch(/^req_/);
    await drain();
    expect(parser.comments).toEqual([`transcript ${transcriptId}`]);
    expect(sandbox.transcripts.openStreams()).toBe(1);

    await sandbox.advance(1999); // 1 ms before the first line has been said in full
    await drain();
    expect(parser.events).toEqual([]);
    await sandbox.advance(1);
    expect(await parser.waitFor(1)).toEqual([segment(0)]);

    await sandbox.advance('3999ms');
    await drain();
    expect(parser.events).toHaveLength(1);
    await sandbox.advance(1);
    expect(await parser.waitFor(2)).toEqual([segment(0), segment(1)]);
    // The JSON form agrees with what has been streamed so far.
    expect((await api.get(`/v1/transcripts/${transcriptId}`)).body.segments).toEqual(
      [segment(0).data, segment(1).data].map(({ index, ...s }) => s),
    );

    await sandbox.advance('4s');
    expect(await parser.waitFor(3)).toEqual([segment(0), segment(1), segment(2)]);
    await sandbox.advance('9999ms');
    await drain();
    expect(parser.ended).toBe(false);

    await sandbox.advance(1); // the call ends at 25 s
    const events = await parser.waitForEnd();
    await done;
    expect(events).toHaveLength(4);
    const end = events[3]!;
    expect(end.event).toBe('end');
    expect(end.id).toBeUndefined();
    expect(end.data).toMatchObject({
      id: transcriptId,
      call_id: callId,
      status: 'processing',
      recording_id: sandbox.calls.get(callId)!.recording_id,
    });
    expect(end.data.segments).toHaveLength(3);
    // Nothing else on the wire: no retry interval, no field a client would not know.
    expect(parser.comments).toEqual([`transcript ${transcriptId}`]);
    expect(parser.retries).toEqual([]);
    expect(parser.errors).toEqual([]);
    expect(sandbox.transcripts.openStreams()).toBe(0);
    expect(sandbox.internalErrors()).toEqual([]);
  });

  it('works the same through node:https (a comment first, so the headers arrive at once)', async ({ sandbox, api }) => {
    const { transcriptId } = await liveCall({ sandbox, api });
    const { status, headers, parser } = await openWithHttps(sandbox, transcriptId);
    expect(status).toBe(200);
    expect(headers['content-type']).toBe('text/event-stream; charset=utf-8');

    await sandbox.advance('2s');
    expect(await parser.waitFor(1)).toEqual([segment(0)]);
    await sandbox.advance('4s');
    expect(await parser.waitFor(2)).toEqual([segment(0), segment(1)]);
    await sandbox.advance('4s');
    expect(await parser.waitFor(3)).toEqual([segment(0), segment(1), segment(2)]);
    await sandbox.advance('10s');
    const events = await parser.waitForEnd();
    expect(events.map((e) => e.event)).toEqual(['segment', 'segment', 'segment', 'end']);
    expect([parser.comments, parser.retries, parser.errors]).toEqual([[`transcript ${transcriptId}`], [], []]);
    expect(sandbox.transcripts.openStreams()).toBe(0);
  });

  it('streams a fixture conversation in order, and `end` carries exactly the streamed segments', async ({ sandbox, api }) => {
    const { body } = await api.placeCall({ ai_receptionist: true });
    await sandbox.advance('5s');
    const { parser } = await openWithFetch(sandbox, body.id); // a call id is accepted too
    for (let second = 0; second < 60; second++) await sandbox.advance('1s');
    const events = await parser.waitForEnd();
    const segments = events.filter((e) => e.event === 'segment');
    expect(segments.length).toBeGreaterThan(3);
    expect(segments.map((e) => e.data.index)).toEqual(segments.map((_, i) => i));
    expect(segments.map((e) => e.id)).toEqual(segments.map((_, i) => String(i)));
    for (let i = 1; i < segments.length; i++) expect(segments[i]!.data.start).toBeGreaterThanOrEqual(segments[i - 1]!.data.end);
    expect(segments[0]!.data.speaker).toBe('receptionist');
    const end = events[events.length - 1]!;
    expect(end.event).toBe('end');
    expect(end.data.segments).toEqual(segments.map(({ data: { index, ...s } }) => s));
  });

  it('a client that joins late first gets the segments already said; Last-Event-ID resumes after the one given', async ({
    sandbox,
    api,
  }) => {
    const { transcriptId } = await liveCall({ sandbox, api });
    await sandbox.advance('7s'); // two lines said
    const late = await openWithFetch(sandbox, transcriptId);
    expect(await late.parser.waitFor(2)).toEqual([segment(0), segment(1)]);

    const resumed = await openWithFetch(sandbox, transcriptId, { headers: { 'last-event-id': '0' } });
    expect(await resumed.parser.waitFor(1)).toEqual([segment(1)]);
    await sandbox.advance('3s');
    expect(await resumed.parser.waitFor(2)).toEqual([segment(1), segment(2)]);
    expect(await late.parser.waitFor(3)).toEqual([segment(0), segment(1), segment(2)]);
    await sandbox.advance('10s');
    await Promise.all([late.parser.waitForEnd(), resumed.parser.waitForEnd()]);
    expect(sandbox.transcripts.openStreams()).toBe(0);
  });

  it('a line in progress at the hang-up is cut there and sent before `end`', async ({ sandbox, api }) => {
    sandbox.network.setBehavior(TO, { ring: '5s', talk: 'manual' });
    const { body } = await api.placeCall();
    sandbox.transcripts.setScript(body.id, SCRIPT);
    await sandbox.advance('5s');
    const { parser } = await openWithFetch(sandbox, body.id);
    await sandbox.advance('4s');
    sandbox.calls.hangUp(body.id); // 4 s after the answer: line 1 (3–6 s) is cut at 4 s
    const events = await parser.waitForEnd();
    expect(events.map((e) => e.event)).toEqual(['segment', 'segment', 'end']);
    expect(events[1]!.data).toMatchObject({ index: 1, start: 3, end: 4 });
    expect(events[2]!.data.segments).toHaveLength(2);
  });
});

describe('a client that goes away leaves nothing running', () => {
  it('fetch with an AbortController', async ({ sandbox, api }) => {
    const { transcriptId } = await liveCall({ sandbox, api });
    const controller = new AbortController();
    const { parser, done } = await openWithFetch(sandbox, transcriptId, { signal: controller.signal });
    await sandbox.advance('2s');
    await parser.waitFor(1);
    expect(sandbox.transcripts.openStreams()).toBe(1);
    controller.abort();
    await done;
    expect(sandbox.transcripts.openStreams()).toBe(0);
    await sandbox.advance('1m'); // the later lines and the hang-up find no stream to write to
    expect(sandbox.internalErrors()).toEqual([]);
    expect(parser.events).toHaveLength(1);
  });

  it('fetch whose reader cancels the body', async ({ sandbox, api }) => {
    const { transcriptId } = await liveCall({ sandbox, api });
    const { reader, done } = await openWithFetch(sandbox, transcriptId);
    await drain();
    await reader.cancel();
    await done;
    expect(sandbox.transcripts.openStreams()).toBe(0);
    await sandbox.advance('1m');
    expect(sandbox.internalErrors()).toEqual([]);
  });

  it('node:https whose request is destroyed', async ({ sandbox, api }) => {
    const { transcriptId } = await liveCall({ sandbox, api });
    const { parser, request } = await openWithHttps(sandbox, transcriptId);
    await sandbox.advance('2s');
    await parser.waitFor(1);
    const closed = new Promise((resolve) => request.once('close', resolve));
    request.destroy();
    await closed;
    expect(sandbox.transcripts.openStreams()).toBe(0);
    await sandbox.advance('1m');
    expect(sandbox.internalErrors()).toEqual([]);
    expect(parser.events).toHaveLength(1);
  });

  it('sandbox.close() and reset() end open streams (without an `end` event)', async ({ sandbox, api }) => {
    const { transcriptId } = await liveCall({ sandbox, api });
    const first = await openWithFetch(sandbox, transcriptId);
    sandbox.reset();
    expect(await first.parser.waitForEnd()).toEqual([]);
    expect(sandbox.transcripts.openStreams()).toBe(0);

    const again = await liveCall({ sandbox, api });
    const second = await openWithFetch(sandbox, again.transcriptId);
    sandbox.close();
    expect(await second.parser.waitForEnd()).toEqual([]);
  });
});

it('streams under the test’s own vi.useFakeTimers(): only the sandbox clock drives it', async ({ sandbox, api }) => {
  vi.useFakeTimers();
  try {
    const { transcriptId } = await liveCall({ sandbox, api });
    const { parser } = await openWithFetch(sandbox, transcriptId);
    await sandbox.advance('2s');
    expect(await parser.waitFor(1)).toEqual([segment(0)]);
    await sandbox.advance('20s');
    expect((await parser.waitForEnd()).map((e) => e.event)).toEqual(['segment', 'segment', 'segment', 'end']);
  } finally {
    vi.useRealTimers();
  }
});

describe('a transcript that is no longer live', () => {
  it('is sent whole at once, then `end`, and the stream closes (also by rec_ id)', async ({ sandbox, api }) => {
    const { callId, transcriptId } = await liveCall({ sandbox, api });
    await sandbox.advance('20s'); // ended
    const processing = await openWithFetch(sandbox, transcriptId);
    const events = await processing.parser.waitForEnd();
    expect(events).toEqual([segment(0), segment(1), segment(2), expect.objectContaining({ event: 'end' })]);
    expect(events[3]!.data.status).toBe('processing');

    await sandbox.advance('30s'); // transcript.ready
    const recordingId = sandbox.calls.get(callId)!.recording_id!;
    const ready = await openWithFetch(sandbox, recordingId, { headers: { 'last-event-id': '1' } });
    const readyEvents = await ready.parser.waitForEnd();
    expect(readyEvents.map((e) => e.event)).toEqual(['segment', 'end']);
    expect(readyEvents[1]!.data).toMatchObject({ status: 'ready', summary: expect.stringContaining('book an appointment') });
    expect(sandbox.transcripts.openStreams()).toBe(0);
  });
});
