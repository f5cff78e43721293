// Size budgets of the built page (sizes are deterministic; timings are measured by
// scripts/measure-budgets.mjs, never asserted).
import { describe, expect, it } from 'vitest';
import { DIST } from '../support/paths';
import { BUDGETS, pageSizes } from '../support/sizes.mjs';

describe('size budgets', () => {
  const sizes = pageSizes(DIST);

  it('the page and everything it loads transfer at most 184 KB gzipped', () => {
    expect(sizes.files.map((f) => f.name)).toEqual(expect.arrayContaining(['index.html']));
    expect(sizes.files.some((f) => f.name.endsWith('.js'))).toBe(true);
    expect(sizes.pageGzipBytes).toBeLessThanOrEqual(BUDGETS.pageGzipBytes);
  });

  it('the wasm is at most its budget (98 KB) gzipped', () => {
    expect(sizes.files.filter((f) => f.name.endsWith('.wasm'))).toHaveLength(1);
    expect(sizes.wasmGzipBytes).toBeGreaterThan(0);
    expect(sizes.wasmGzipBytes).toBeLessThanOrEqual(BUDGETS.wasmGzipBytes);
  });

  it("the wasm's data file, preloaded beside it, is at most its budget (33.5 KB) gzipped", () => {
    expect(sizes.files.filter((f) => /membudget-data-[^/]+\.bin$/.test(f.name))).toHaveLength(1);
    expect(sizes.wasmDataGzipBytes).toBeGreaterThan(0);
    expect(sizes.wasmDataGzipBytes).toBeLessThanOrEqual(BUDGETS.wasmDataGzipBytes);
  });

  it('the planner, loaded only when a search starts, brings its own wasm (planner, advice, importers) of at most its budget (314 KB) gzipped', () => {
    expect(sizes.plannerFiles.map((f) => f.name).some((n) => n.includes('plan-worker'))).toBe(true);
    expect(sizes.plannerWasmGzipBytes).toBeGreaterThan(0);
    expect(sizes.plannerWasmGzipBytes).toBeLessThanOrEqual(BUDGETS.plannerWasmGzipBytes);
    // None of it is among what the page itself loads.
    expect(sizes.files.some((f) => sizes.plannerFiles.some((p) => p.name === f.name))).toBe(false);
  });
});
