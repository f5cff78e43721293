import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const FIXTURES = resolve(ROOT, 'tests/fixtures');
export const CLI = resolve(ROOT, 'build/membudget');
export const DIST = resolve(ROOT, 'dist');
export const WASM = resolve(ROOT, 'web/src/wasm/membudget.wasm');

export function fixture<T = any>(name: string): T {
  return JSON.parse(readFileSync(resolve(FIXTURES, `${name}.json`), 'utf8')) as T;
}
