import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadEngine, type Engine } from '../../web/src/engine';
import { formatBytes, formatPercent, ledgerMarkdown, verdictSentence } from '../../web/src/format';
import { WASM, WASM_DATA } from '../support/paths';

let engine: Engine;
beforeAll(async () => {
  engine = await loadEngine(readFileSync(WASM), readFileSync(WASM_DATA));
});

describe('format', () => {
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
