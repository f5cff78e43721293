// The page's wasm module comes as code and data apart (scripts/split-wasm-data.mjs, issue 31): the module the page
// compiles first holds only code, and its static memory (the ledger's formulas, notes, citations and messages, the
// tables) is fetched beside it and copied into the instance's memory here, after instantiation and before the
// module's constructors run (Emscripten calls them only once the instantiateWasm hook hands the instance back).
import { readBounded } from './read-bounded';

/** The custom section in which the split module names the data it needs. */
const SECTION = 'membudget.data';
const MAGIC = 'MBDATA1\u0000';
const IDENTITY_BYTES = 16;
const HEADER_BYTES = MAGIC.length + IDENTITY_BYTES + 4;

const hex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');

/**
 * The most the data file may inflate to: its image must fit the module's 16 MiB initial memory (wasm/wasm.cmake's
 * INITIAL_MEMORY), so a file that inflates past that is refused while it inflates, not after.
 */
export const MAX_INFLATED_DATA_BYTES = 16 * 1024 * 1024;

/**
 * The data file as written (scripts/split-wasm-data.mjs stores it gzipped), inflated with the platform's
 * DecompressionStream; bytes already inflated (a host that decoded a Content-Encoding it added) pass as they are.
 * A file that is neither fails in writeModuleData, which names it.
 *
 * The bytes are written to the stream and its output read directly: the same inflation through a Blob's stream and
 * a Response (one more process hop each) took 4–10 ms of a cold page's start-up against 0.7–2 ms (issue 31).
 */
export async function inflateModuleData(bytes: Uint8Array): Promise<Uint8Array> {
  if (bytes[0] !== 0x1f || bytes[1] !== 0x8b) return bytes;
  if (typeof DecompressionStream === 'undefined')
    throw new Error(
      "membudget: this browser cannot inflate the engine's data file (it lacks DecompressionStream: Chrome 80, Firefox 113 and Safari 16.4 have it)",
    );
  const stream = new DecompressionStream('gzip');
  const writer = stream.writable.getWriter();
  // Awaited after the output is read; a corrupt file rejects both sides, and the reader's error is the one named.
  const written = writer.write(new Uint8Array(bytes)).then(() => writer.close());
  written.catch(() => {});
  const inflated = await readBounded(
    stream.readable,
    MAX_INFLATED_DATA_BYTES,
    () => new Error(`membudget: the engine data file inflates to more than ${MAX_INFLATED_DATA_BYTES} bytes; it is not this build's`),
  );
  await written;
  return inflated;
}

/** The identity of the data a split module needs, or undefined for a whole module (its data inside). */
export function dataIdentityOf(module: WebAssembly.Module): string | undefined {
  const sections = WebAssembly.Module.customSections(module, SECTION);
  return sections.length ? hex(new Uint8Array(sections[0])) : undefined;
}

/**
 * Copies the data file's image into the instance's memory. Throws, naming what is wrong, when the file is not a
 * membudget data file, comes from another build than the module, or does not fit the module's memory: the module's
 * code must never run over memory that is not its own build's.
 */
export function writeModuleData(module: WebAssembly.Module, instance: WebAssembly.Instance, data: Uint8Array | undefined): void {
  const wanted = dataIdentityOf(module);
  if (wanted === undefined) {
    if (data) throw new Error('membudget: the engine module has its data inside; no data file belongs to it');
    return;
  }
  if (!data) throw new Error('membudget: the engine module needs its data file (membudget-data.bin), which was not given');
  const magic = String.fromCharCode(...data.subarray(0, MAGIC.length));
  if (data.length < HEADER_BYTES || magic !== MAGIC) throw new Error('membudget: the engine data file is not a membudget data file');
  const identity = hex(data.subarray(MAGIC.length, MAGIC.length + IDENTITY_BYTES));
  if (identity !== wanted)
    throw new Error(`membudget: the engine data file (${identity}) belongs to another build than the module (${wanted})`);
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const offset = view.getUint32(MAGIC.length + IDENTITY_BYTES, true);
  const image = data.subarray(HEADER_BYTES);
  const memory = Object.values(instance.exports).find((value) => value instanceof WebAssembly.Memory);
  if (!(memory instanceof WebAssembly.Memory)) throw new Error('membudget: the engine module exports no memory');
  if (offset + image.length > memory.buffer.byteLength) throw new Error("membudget: the engine data file does not fit the module's memory");
  new Uint8Array(memory.buffer, offset, image.length).set(image);
}
