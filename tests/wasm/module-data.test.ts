// The page's module as code and data apart (scripts/split-wasm-data.mjs, web/src/wasm-data.ts): the data file is
// exactly the whole module's data section, and the loader refuses, naming why, any data file that is not the one
// its module was built with, since code run over another build's memory would compute silently wrong ledgers.
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { dataIdentityOf, inflateModuleData, MAX_INFLATED_DATA_BYTES, writeModuleData } from '../../web/src/wasm-data';
import { ROOT, WASM, WASM_DATA } from '../support/paths';

/** The module as Emscripten linked it, with its data section (build-wasm/, which scripts/build-web.sh builds). */
const WHOLE = resolve(ROOT, 'build-wasm/membudget.wasm');

/** The active data segments (offset, bytes) of a whole module, read from its data section. */
function dataSegments(bytes: Uint8Array): { offset: number; data: Uint8Array }[] {
  let at = 8;
  const uleb = () => {
    let value = 0,
      shift = 0,
      byte;
    do {
      byte = bytes[at++];
      value += (byte & 0x7f) * 2 ** shift;
      shift += 7;
    } while (byte & 0x80);
    return value;
  };
  while (at < bytes.length) {
    const id = bytes[at++];
    const size = uleb();
    const end = at + size;
    if (id === 11) {
      const segments = [];
      for (let count = uleb(); count > 0; count--) {
        expect(uleb()).toBe(0); // active, memory 0
        expect(bytes[at++]).toBe(0x41); // i32.const
        const offset = uleb(); // offsets below 2^31 here: the unsigned and signed readings agree
        expect(bytes[at++]).toBe(0x0b);
        const length = uleb();
        segments.push({ offset, data: bytes.subarray(at, at + length) });
        at += length;
      }
      return segments;
    }
    at = end;
  }
  return [];
}

let code: WebAssembly.Module;
let data: Uint8Array;
beforeAll(async () => {
  code = await WebAssembly.compile(readFileSync(WASM));
  data = await inflateModuleData(new Uint8Array(readFileSync(WASM_DATA)));
});

describe("the page's module and its data file", () => {
  it('ships the data file gzipped, and reads it inflated or not', async () => {
    const stored = new Uint8Array(readFileSync(WASM_DATA));
    expect([stored[0], stored[1]]).toEqual([0x1f, 0x8b]);
    expect(Buffer.from(data)).toEqual(gunzipSync(stored));
    expect(await inflateModuleData(data)).toBe(data); // already inflated: as it is
    // A browser without DecompressionStream is told so, not left with a garbled engine.
    vi.stubGlobal('DecompressionStream', undefined);
    try {
      await expect(inflateModuleData(stored)).rejects.toThrow(/lacks DecompressionStream/);
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it('refuses a gzip that is corrupt or inflates past the module memory, while it inflates', async () => {
    const stored = new Uint8Array(readFileSync(WASM_DATA));
    const corrupt = stored.slice();
    corrupt.fill(0xff, 20, 60); // inside the deflate stream
    await expect(inflateModuleData(corrupt)).rejects.toThrow();
    // 1 KiB past the limit, a few KB gzipped: refused by its size, not copied.
    const bomb = new Uint8Array(gzipSync(Buffer.alloc(MAX_INFLATED_DATA_BYTES + 1024)));
    // (its length, not the bytes, is what a failure would print)
    await expect(inflateModuleData(bomb).then((inflated) => inflated.length)).rejects.toThrow(/inflates to more than 16777216 bytes/);
    // At the limit exactly it inflates (a file that fits is not refused by the bound).
    const full = await inflateModuleData(new Uint8Array(gzipSync(Buffer.alloc(MAX_INFLATED_DATA_BYTES, 7))));
    expect([full.length, full[0], full[full.length - 1]]).toEqual([MAX_INFLATED_DATA_BYTES, 7, 7]);
  });

  it('holds no data section itself and names the data file it needs', () => {
    expect(dataSegments(readFileSync(WASM))).toEqual([]);
    const identity = dataIdentityOf(code);
    expect(identity).toMatch(/^[0-9a-f]{32}$/);
    expect(Buffer.from(data.subarray(8, 24)).toString('hex')).toBe(identity);
  });

  it("carries every byte of the whole module's data section at its offset, and zeros between", () => {
    expect(existsSync(WHOLE)).toBe(true);
    const segments = dataSegments(readFileSync(WHOLE));
    expect(segments.length).toBeGreaterThan(0);
    const offset = new DataView(data.buffer, data.byteOffset).getUint32(24, true);
    const image = data.subarray(28);
    const covered = new Uint8Array(image.length);
    for (const segment of segments) {
      expect(Buffer.from(image.subarray(segment.offset - offset, segment.offset - offset + segment.data.length))).toEqual(
        Buffer.from(segment.data),
      );
      covered.fill(1, segment.offset - offset, segment.offset - offset + segment.data.length);
    }
    expect(image.every((byte, i) => covered[i] === 1 || byte === 0)).toBe(true);
    expect(offset + image.length).toBe(Math.max(...segments.map((s) => s.offset + s.data.length)));
  });

  it('refuses a missing, foreign, truncated or oversized data file, naming why', () => {
    const memory = new WebAssembly.Memory({ initial: 1 });
    const instance = { exports: { memory } } as unknown as WebAssembly.Instance;
    expect(() => writeModuleData(code, instance, undefined)).toThrow(/needs its data file \(membudget-data\.bin\)/);
    expect(() => writeModuleData(code, instance, data.subarray(0, 20))).toThrow(/not a membudget data file/);
    const notOurs = data.slice();
    notOurs[0] ^= 0xff;
    expect(() => writeModuleData(code, instance, notOurs)).toThrow(/not a membudget data file/);
    const otherBuild = data.slice();
    otherBuild[10] ^= 0x01;
    expect(() => writeModuleData(code, instance, otherBuild)).toThrow(/belongs to another build than the module/);
    // The module's own identity, but an image that would run past the memory's end.
    const tooFar = data.slice(0, 28 + 16);
    new DataView(tooFar.buffer).setUint32(24, 65536 - 8, true);
    expect(() => writeModuleData(code, instance, tooFar)).toThrow(/does not fit the module's memory/);
    expect(new Uint8Array(memory.buffer).every((byte) => byte === 0)).toBe(true);
  });

  it('refuses a data file beside a module that has its data inside', async () => {
    const whole = await WebAssembly.compile(readFileSync(WHOLE));
    expect(dataIdentityOf(whole)).toBeUndefined();
    const instance = { exports: {} } as unknown as WebAssembly.Instance;
    expect(() => writeModuleData(whole, instance, data)).toThrow(/has its data inside/);
    expect(() => writeModuleData(whole, instance, undefined)).not.toThrow();
  });
});
