const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * One server-sent event as the bytes of its frame: `id` (when given), `event`, and one
 * `data` line of JSON (JSON.stringify never emits a line break, so one line always holds
 * it), then the blank line that ends the event. The live transcript stream and the
 * server's session stream both write their events with it.
 *
 * @example
 * controller.enqueue(sseFrame('segment', { index: 0, text: 'Hello' }, 0));
 * // id: 0\nevent: segment\ndata: {"index":0,"text":"Hello"}\n\n
 */
export function sseFrame(event: string, data: unknown, id?: number): Uint8Array {
  return encoder.encode(`${id === undefined ? '' : `id: ${id}\n`}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}

/** The text a client reads from `frames`, in order: a stream's example in the OpenAPI documents. */
export function sseText(frames: readonly Uint8Array[]): string {
  return frames.map((frame) => decoder.decode(frame)).join('');
}

/** An SSE comment line (ignored by clients) and, optionally, the reconnection delay. */
export function sseComment(text: string, retryMs?: number): Uint8Array {
  return encoder.encode(`: ${text}\n${retryMs === undefined ? '' : `retry: ${retryMs}\n`}\n`);
}
