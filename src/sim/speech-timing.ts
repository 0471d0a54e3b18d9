import type { ConversationLine } from './conversations.js';

/** A spoken segment, in milliseconds from the moment the call was answered. */
export interface TimedSegment {
  speaker: string;
  text: string;
  startMs: number;
  endMs: number;
}

/** Natural pace of an untimed script (see docs/transcripts.md). */
const LEAD_MS = 500;
const MS_PER_WORD = 350;
const MIN_LINE_MS = 1_000;
const GAP_MS = 600;
const TAIL_MS = 1_000;
/** A script is scaled to fill the call, but never spoken faster than twice or slower than half its natural pace. */
const FASTEST = 0.5;
const SLOWEST = 2;
const STEP_MS = 100;

const words = (text: string) => text.trim().split(/\s+/).length;
const toStep = (ms: number) => Math.round(ms / STEP_MS) * STEP_MS;

/**
 * Times a script for a call whose talk time is `talkMs` (null when the test hangs up by
 * hand). Lines with their own `start`/`end` keep them. Untimed lines are paced by their
 * length (0.35 s a word, at least 1 s, 0.6 s between lines), then the whole conversation
 * is scaled so it ends about a second before the call does, within 0.5×–2× of that
 * natural pace; what still does not fit is cut at the hang-up by {@link trimSegments}.
 *
 * @example
 * planSegments([{ speaker: 'a', text: 'Hello there' }], 10_000); // [{ speaker: 'a', text: 'Hello there', startMs: 1000, endMs: 3000 }]
 */
export function planSegments(lines: readonly ConversationLine[], talkMs: number | null): TimedSegment[] {
  const timed = lines.flatMap(({ speaker, text, start, end }) =>
    start === undefined || end === undefined ? [] : [{ speaker, text, startMs: Math.round(start * 1000), endMs: Math.round(end * 1000) }],
  );
  if (timed.length === lines.length) return timed;
  let at = LEAD_MS;
  const natural = lines.map((line) => {
    const startMs = at;
    const endMs = startMs + Math.max(MIN_LINE_MS, words(line.text) * MS_PER_WORD);
    at = endMs + GAP_MS;
    return { speaker: line.speaker, text: line.text, startMs, endMs };
  });
  const naturalMs = (natural.at(-1)?.endMs ?? LEAD_MS) + TAIL_MS;
  const factor = talkMs === null ? 1 : Math.min(SLOWEST, Math.max(FASTEST, talkMs / naturalMs));
  return natural.map((segment) => {
    const startMs = toStep(segment.startMs * factor);
    return { ...segment, startMs, endMs: Math.max(startMs + STEP_MS, toStep(segment.endMs * factor)) };
  });
}

/**
 * The segments of a call that ended `endMs` after its answer: later lines are dropped, a
 * line in progress is cut at the hang-up.
 *
 * @example
 * trimSegments([{ speaker: 'a', text: 'Hi', startMs: 0, endMs: 5000 }], 2000); // [{ ..., endMs: 2000 }]
 */
export function trimSegments(segments: readonly TimedSegment[], endMs: number): TimedSegment[] {
  return segments.filter((s) => s.startMs < endMs).map((s) => (s.endMs > endMs ? { ...s, endMs } : s));
}
