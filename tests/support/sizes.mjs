// What a visitor's browser transfers for the page: index.html and every file it loads, gzipped.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

/** Budgets in bytes (KB = 1,000 bytes). */
export const BUDGETS = { pageGzipBytes: 150_000, wasmGzipBytes: 80_000 };

/**
 * @param {string} dist
 * @returns {{ files: { name: string; bytes: number; gzipBytes: number }[]; pageGzipBytes: number; wasmGzipBytes: number }}
 */
export function pageSizes(dist) {
  const html = readFileSync(join(dist, 'index.html'), 'utf8');
  // The page loads its entry script and stylesheet, and the script fetches the .wasm.
  const referenced = [...html.matchAll(/(?:src|href)="\.\/(assets\/[^"]+)"/g)].map((m) => m[1]);
  const wasm = readdirSync(join(dist, 'assets')).filter((f) => f.endsWith('.wasm')).map((f) => `assets/${f}`);
  const names = ['index.html', ...new Set([...referenced, ...wasm])];
  const files = names.map((name) => {
    const content = readFileSync(join(dist, name));
    return { name, bytes: content.length, gzipBytes: gzipSync(content, { level: 9 }).length };
  });
  return {
    files,
    pageGzipBytes: files.reduce((sum, f) => sum + f.gzipBytes, 0),
    wasmGzipBytes: files.filter((f) => f.name.endsWith('.wasm')).reduce((sum, f) => sum + f.gzipBytes, 0),
  };
}
