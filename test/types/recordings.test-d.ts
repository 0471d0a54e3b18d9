import { describe, expectTypeOf, it } from 'vitest';
import {
  createSandbox,
  type ConversationLine,
  type Recording,
  type RecordingTiming,
  type Transcript,
  type TranscriptSegment,
} from '../../src/index.js';

describe('recordings and transcripts surface types', () => {
  it('scripting namespaces return the API shapes', () => {
    const sandbox = createSandbox();
    expectTypeOf(sandbox.recordings.get).returns.toEqualTypeOf<Recording | undefined>();
    expectTypeOf(sandbox.recordings.setTiming).parameters.toEqualTypeOf<[RecordingTiming, (string | undefined)?]>();
    expectTypeOf(sandbox.transcripts.get).returns.toEqualTypeOf<Transcript | undefined>();
    expectTypeOf(sandbox.transcripts.setScript).parameter(1).toEqualTypeOf<readonly ConversationLine[]>();
    expectTypeOf(sandbox.transcripts.openStreams).returns.toEqualTypeOf<number>();
  });

  it('resources have the contract’s fields', () => {
    expectTypeOf<Recording>().toHaveProperty('transcript').toEqualTypeOf<Transcript | null>();
    expectTypeOf<Recording['status']>().toEqualTypeOf<'processing' | 'ready'>();
    expectTypeOf<Transcript['status']>().toEqualTypeOf<'live' | 'processing' | 'ready'>();
    expectTypeOf<Transcript['segments']>().toEqualTypeOf<TranscriptSegment[]>();
    expectTypeOf<TranscriptSegment>().toEqualTypeOf<{ speaker: string; text: string; start: number; end: number }>();
  });
});
