import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const FIXTURES = resolve(ROOT, 'tests/fixtures');
// MEMBUDGET_CLI: a CLI built elsewhere (another build directory) to compare against.
export const CLI = process.env.MEMBUDGET_CLI ? resolve(process.env.MEMBUDGET_CLI) : resolve(ROOT, 'build/membudget');
export const DIST = resolve(ROOT, 'dist');
export const WASM = resolve(ROOT, 'web/src/wasm/membudget.wasm');
// The page's module comes as code and data apart (scripts/split-wasm-data.mjs): loadEngine needs both.
export const WASM_DATA = resolve(ROOT, 'web/src/wasm/membudget-data.bin');
export const PLANNER_WASM = resolve(ROOT, 'web/src/wasm/membudget-planner.wasm');

export function fixture<T = any>(name: string): T {
  return JSON.parse(readFileSync(resolve(FIXTURES, `${name}.json`), 'utf8')) as T;
}
