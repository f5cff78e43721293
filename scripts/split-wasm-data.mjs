#!/usr/bin/env node
// Splits the page's wasm module into its code and its data (issue 31: "move the text only the page shows out of the
// page module into data the page loads with it"). The data section of an Emscripten module is its static memory:
// every formula, note, citation and message the ledger writes, the presets' names, the tables. None of it is
// compiled, so it need not sit in the module the page compiles first: the page fetches it beside the module and
// copies it into the module's memory before any of the module's code runs (web/src/wasm-data.ts).
//
//   node scripts/split-wasm-data.mjs <in.wasm> <out.wasm> <out-data.bin>
//
// out.wasm is in.wasm without its data section, plus a custom section `membudget.data` holding the data's 16-byte
// identity (the first 16 bytes of the SHA-256 of the offset and image); the data file starts with the same identity, so that the loader
// refuses a pair from two different builds instead of running code over another build's memory.
// Layout of the data file, before it is gzipped: "MBDATA1\0", the identity (16 bytes), the memory offset of the image (u32, little-endian),
// then the image: memory from that offset to the end of the last segment, zeros between segments.
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';

const [input, outWasm, outData] = process.argv.slice(2);
if (!input || !outWasm || !outData) {
  console.error('usage: split-wasm-data.mjs <in.wasm> <out.wasm> <out-data.bin>');
  process.exit(2);
}
const fail = (/** @type {string} */ why) => {
  console.error(`split-wasm-data: ${input}: ${why}`);
  process.exit(1);
};

const bytes = readFileSync(input);
if (bytes.readUInt32LE(0) !== 0x6d736100 || bytes.readUInt32LE(4) !== 1) fail('not a wasm module (version 1)');

/**
 * A LEB128 number at `at`: unsigned (section sizes, counts, lengths) or, with `signed`, the i32.const of a segment's
 * offset, sign-extended and then read as the unsigned 32-bit address it is.
 * @returns {[number, number]} value and the position after it
 */
function leb(/** @type {number} */ at, signed = false) {
  let value = 0,
    shift = 0,
    byte;
  do {
    byte = bytes[at++];
    value += (byte & 0x7f) * 2 ** shift;
    shift += 7;
  } while (byte & 0x80);
  if (signed && byte & 0x40) value -= 2 ** shift;
  return [signed ? value >>> 0 : value, at];
}
const ulebBytes = (/** @type {number} */ n) => {
  const out = [];
  do {
    let byte = n & 0x7f;
    n = Math.floor(n / 128);
    if (n) byte |= 0x80;
    out.push(byte);
  } while (n);
  return Buffer.from(out);
};

const kept = [bytes.subarray(0, 8)];
/** @type {{ offset: number; data: Buffer }[]} */
const segments = [];
let at = 8;
while (at < bytes.length) {
  const id = bytes[at];
  const [size, body] = leb(at + 1);
  const end = body + size;
  if (id === 8) fail('has a start function: it would run before the data is in memory');
  if (id === 12) fail('has a data count section (bulk memory): its code may refer to the data segments');
  if (id === 11) {
    let [count, p] = leb(body);
    while (count--) {
      const [flags, afterFlags] = leb(p);
      // 0: active, memory 0, offset an i32.const expression: the only form Emscripten writes without threads.
      if (flags !== 0 || bytes[afterFlags] !== 0x41) fail(`data segment of form ${flags} is not an active i32.const one`);
      const [offset, afterConst] = leb(afterFlags + 1, true);
      if (bytes[afterConst] !== 0x0b) fail('data segment offset is not a constant');
      const [length, start] = leb(afterConst + 1);
      segments.push({ offset, data: bytes.subarray(start, start + length) });
      p = start + length;
    }
    if (p !== end) fail('data section has trailing bytes');
  } else {
    kept.push(bytes.subarray(at, end));
  }
  at = end;
}
if (segments.length === 0) fail('has no data section (already split?)');

// One image from the first segment's offset to the last one's end: the optimizer splits the data into a segment per
// run of non-zero bytes (1,114 here), and the zeros between them cost less in the gzipped image than their headers.
const first = Math.min(...segments.map((s) => s.offset));
const image = Buffer.alloc(Math.max(...segments.map((s) => s.offset + s.data.length)) - first);
for (const { offset, data } of segments) data.copy(image, offset - first);
const offsetBytes = Buffer.alloc(4);
offsetBytes.writeUInt32LE(first, 0);
const body = Buffer.concat([offsetBytes, image]);
const identity = createHash('sha256').update(body).digest().subarray(0, 16);
// Stored gzipped (the loader inflates it with the browser's DecompressionStream): a host that serves files as they
// are then sends 26 KB, not the image's 100 KB of text and zeros; one that compresses gains nothing more from it.
writeFileSync(outData, gzipSync(Buffer.concat([Buffer.from('MBDATA1\0', 'latin1'), identity, body]), { level: 9 }));

const name = Buffer.from('membudget.data', 'utf8');
const custom = Buffer.concat([ulebBytes(name.length), name, identity]);
writeFileSync(outWasm, Buffer.concat([...kept, Buffer.from([0]), ulebBytes(custom.length), custom]));
const total = segments.reduce((sum, s) => sum + s.data.length, 0);
console.log(`split-wasm-data: ${segments.length} data segments, ${total} bytes, as a ${image.length}-byte image at ${first} in ${outData}`);
