// One reader for the byte streams the page takes in (a Hub file, the engine's inflated data file): read to the end
// into one array, and refused while it is read once it passes its limit, whatever a header or a size promised.

/**
 * The stream's bytes, or `tooLarge(bytes read)`'s error once they pass `limit` (the stream is cancelled then, so
 * nothing more is read or kept).
 */
export async function readBounded(
  stream: ReadableStream<Uint8Array>,
  limit: number,
  tooLarge: (bytes: number) => Error,
): Promise<Uint8Array> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.byteLength;
    if (bytes > limit) {
      await reader.cancel();
      throw tooLarge(bytes);
    }
    chunks.push(value);
  }
  if (chunks.length === 1) return chunks[0];
  const all = new Uint8Array(bytes);
  let at = 0;
  for (const chunk of chunks) {
    all.set(chunk, at);
    at += chunk.byteLength;
  }
  return all;
}
