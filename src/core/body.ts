/** Largest request body accepted, in bytes, by the API and the control API alike (see docs/errors.md). */
export const MAX_BODY_BYTES = 1_048_576;

/**
 * A body's bytes, read no further than `limit`: `null` as soon as more has arrived, and the
 * rest is cancelled unread, so a client that sends 200 MB costs the sandbox at most the limit.
 */
export async function readAtMost(body: ReadableStream<Uint8Array>, limit = MAX_BODY_BYTES): Promise<Uint8Array | null> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      void reader.cancel().catch(() => undefined);
      return null;
    }
    chunks.push(value);
  }
  const [only] = chunks;
  if (chunks.length === 1 && only) return only;
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return bytes;
}
