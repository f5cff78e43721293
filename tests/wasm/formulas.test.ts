// The ledger's promise in the wasm build, as tests/cpp/test_formulas.cpp checks it natively: every line's
// substituted formula evaluates to its value, for every method, preset, mode and a seeded set of random
// configurations; membudget's own lines are whole bytes.
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadEngine, type Config, type Engine, type Method } from '../../web/src/engine';
import { evaluateExpression, evaluatesTo } from '../support/expression';
import { WASM, WASM_DATA } from '../support/paths';

let engine: Engine;
beforeAll(async () => {
  engine = await loadEngine(readFileSync(WASM), readFileSync(WASM_DATA));
});

function check(config: Config): number {
  const ledger = engine.evaluate(config);
  let lines = 0;
  for (const line of [...ledger.lines, ...ledger.cpuLines]) {
    const where = `${engine.encodeQuery(config)} ${line.id}: ${line.substituted} = ${line.bytes}`;
    expect(evaluatesTo(line.substituted, line.bytes), where).toBe(true);
    if (config.method === 'membudget' || line.origin === 'membudget') expect(Number.isInteger(line.bytes), where).toBe(true);
    lines += 1;
  }
  return lines;
}

// A small seeded generator (mulberry32), so that the set is the same on every run.
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('substituted formulas', () => {
  it('the evaluator reads the column’s grammar and refuses words', () => {
    expect(evaluateExpression('80 × 71,804,108.8 + 315,621,376')).toBeCloseTo(80 * 71804108.8 + 315621376, 0);
    expect(evaluateExpression('2 × 10⁹')).toBe(2e9);
    expect(evaluateExpression('⌈7 / 2⌉ + ⌊7 / 2⌋ − min(1, 2, 3) + max(4, 5)')).toBe(11);
    expect(() => evaluateExpression('4,096 tokens per forward pass')).toThrow();
    expect(() => evaluateExpression('P = 4,409,606,656, G = 4')).toThrow();
  });

  it('evaluate to their values: presets × methods × modes × layouts', () => {
    const methods = engine.fields.find((f) => f.key === 'method')!.choices as Method[];
    let lines = 0;
    for (const preset of engine.modelPresets)
      for (const mode of ['training', 'inference'] as const)
        for (const method of methods)
          for (const [tp, pp, dp, zero] of [
            [1, 1, 1, 0],
            [8, 1, 32, 1],
            [8, 4, 8, 3],
            [2, 2, 4, 2],
          ]) {
            if (mode === 'inference' && method !== 'membudget') continue;
            const config = { ...engine.decodeQuery(`model=${preset.id}`).config, mode, method, tp, pp, dp, zero, ep: 1 };
            if (engine.validate(config).length > 0) continue;
            lines += check(config);
          }
    expect(lines).toBeGreaterThan(2000);
  });

  it('evaluate to their values: 1,000 seeded random configurations', () => {
    const next = random(20261201);
    const pick = <T>(values: readonly T[]): T => values[Math.floor(next() * values.length)]!;
    let checked = 0;
    while (checked < 1000) {
      const preset = pick(engine.modelPresets);
      const mode = pick(['training', 'training', 'inference']);
      const query = [
        `model=${preset.id}`,
        `mode=${mode}`,
        `method=${mode === 'inference' ? 'membudget' : pick(['membudget', 'chapter', 'korthikanti', 'megatron', 'zero', 'deepspeed'])}`,
        `tp=${pick([1, 2, 4, 8])}`,
        `pp=${pick([1, 2, 3, 4])}`,
        `dp=${pick([1, 2, 8, 64])}`,
        `cp=${pick([1, 2])}`,
        `zero=${pick([0, 1, 2, 3])}`,
        `sp=${pick([true, false])}`,
        `ckpt=${pick(['none', 'selective', 'full'])}`,
        `mb=${pick([1, 2, 3])}`,
        `seq=${pick([1000, 2048, 8192])}`,
        `microbatches=${pick([1, 4, 32])}`,
        `precision=${pick(['bf16', 'fp16', 'fp8', 'fp32'])}`,
        `optimizer=${pick(['adamw', 'adamw_8bit', 'adafactor', 'sgd', 'muon'])}`,
        `attention=${pick(['flash', 'eager'])}`,
        `dropout=${pick([true, false])}`,
        `offload=${pick(['none', 'optimizer', 'all'])}`,
        `weight_dtype=${pick(['bf16', 'fp8', 'int8', 'int4'])}`,
        `buffers_gb=${pick([2, 1.25, 0.0000000015])}`,
      ].join('&');
      const decoded = engine.decodeQuery(query);
      if (decoded.notices.length > 0 || engine.validate(decoded.config).length > 0) continue;
      check(decoded.config);
      checked += 1;
    }
  });
});
