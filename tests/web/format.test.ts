import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadEngine, type Engine } from '../../web/src/engine';
import { formatBytes, formatPercent, groupedDecimal, ledgerMarkdown, verdictSentence } from '../../web/src/format';
import { WASM, WASM_DATA } from '../support/paths';

let engine: Engine;
beforeAll(async () => {
  engine = await loadEngine(readFileSync(WASM), readFileSync(WASM_DATA));
});

describe('format', () => {
  it('writes numbers as Intl.NumberFormat en-US does, without Intl (edge cases and 200,000 random numbers)', () => {
    const shapes: [number, number][] = [
      [2, 2],
      [0, 2],
      [0, 0],
      [1, 1],
      [0, 6],
      [0, 1],
      [3, 3],
    ];
    const edges = [
      0,
      -0,
      0.5,
      1.5,
      2.5,
      -2.5,
      0.125,
      1.005,
      1.015,
      2.675,
      0.045,
      9.995,
      99.995,
      999.5,
      999.95,
      0.0049,
      0.005,
      0.0051,
      1e-7,
      5e-7,
      1.5e-7,
      123456.785,
      1e21,
      1.5e21,
      123456789012345680000,
      2 ** 53,
      2 ** 53 + 2,
      2 ** 60 + 2 ** 8, // the shortest decimal, ...847,200, not the exact ...847,232
      2 ** 62 + 2 ** 10 + 2 ** 9,
      2 ** 63,
      1e300,
      Number.MAX_VALUE,
      Number.MIN_VALUE,
      -1234567.891,
      999999.9999,
      0.1 + 0.2,
      41.95233864,
      70e9,
      1 / 3,
      2 / 3,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      Number.NEGATIVE_INFINITY,
    ];
    let seed = 12345;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const randoms = Array.from({ length: 200_000 }, (_, i) => {
      const scale = 10 ** Math.floor(random() * 24 - 8);
      const x = random() * scale;
      // Every fourth a short decimal, where ties are likeliest (1.005, 12.125).
      const v = i % 4 === 0 ? Number((Math.round(x * 1000) / 1000).toFixed(3)) : x;
      return i % 2 ? -v : v;
    });
    for (const [min, max] of shapes) {
      const intl = new Intl.NumberFormat('en-US', { minimumFractionDigits: min, maximumFractionDigits: max });
      for (const v of edges) expect(groupedDecimal(v, min, max), `${v} (${min}, ${max})`).toBe(intl.format(v));
      const wrong = randoms.filter((v) => groupedDecimal(v, min, max) !== intl.format(v));
      expect(wrong.slice(0, 5).map((v) => [v, groupedDecimal(v, min, max), intl.format(v)])).toEqual([]);
    }
  });

  it('shows bytes in GB (1e9) or GiB (2^30), and a dash, never NaN or Infinity', () => {
    expect(formatBytes(41952338640, 'gb')).toBe('41.95');
    expect(formatBytes(41952338640, 'gib')).toBe('39.07');
    expect(formatBytes(1.5e12, 'gb')).toBe('1,500.00');
    expect(formatBytes(Number.NaN, 'gb')).toBe('—');
    expect(formatBytes(Number.POSITIVE_INFINITY, 'gib')).toBe('—');
    expect(formatPercent(0.1)).toBe('10%');
    expect(formatPercent(Number.NaN)).toBe('—');
  });

  it('states the deciding margin of each verdict', () => {
    const fits = engine.evaluate(engine.defaultConfig());
    expect(verdictSentence(fits, 'gb')).toBe('30.05 GB below the headroom line; 38.05 GB left of the capacity');
    const tight = engine.evaluate(engine.decodeQuery('model=chapter-405b&pp=4&dp=8').config);
    expect(verdictSentence(tight, 'gb')).toBe('2.72 GB over the headroom line, 5.28 GB under the capacity');
    const over = engine.evaluate(engine.decodeQuery('ckpt=none').config);
    expect(verdictSentence(over, 'gb')).toMatch(/^3\.90 GB over the capacity$/);
  });

  it('exports the checklist as a Markdown table with every line, the total and the link', () => {
    const config = engine.defaultConfig();
    const markdown = ledgerMarkdown(engine.evaluate(config), config, 'gb', 'https://example.org/membudget/?tp=8');
    expect(markdown).toContain('| Component | Formula | Value (GB) | Notes |');
    expect(markdown).toContain('| Parameters | 2Ψ / (TP × PP) = 2 × 70,000,000,000 / (8 × 1) | 17.50 | BF16 working copy |');
    expect(markdown).toContain('| **Total** | sum | **41.95** |');
    expect(markdown).toContain('[Open in membudget](https://example.org/membudget/?tp=8)');
    expect(markdown.split('\n').filter((l) => l.startsWith('| ')).length).toBe(1 + 6 + 1);
    expect(markdown).not.toMatch(/NaN|Infinity|undefined/);
  });
});
