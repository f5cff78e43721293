// config.json import in the wasm build, against the same fixtures as tests/cpp/test_hf_import.cpp.
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { flattenJson, loadPlannerEngine, MembudgetError, type Engine } from '../../web/src/engine';
import { fixture, PLANNER_WASM } from '../support/paths';

let engine: Engine;
beforeAll(async () => {
  // The importer lives in the on-demand module (the planner's).
  engine = await loadPlannerEngine(readFileSync(PLANNER_WASM));
});

describe('Hugging Face config.json import', () => {
  const hf = fixture('hf-configs');
  for (const c of hf.cases) {
    it(c.name, () => {
      // TP 1 divides every model's heads; the default TP 8 does not divide GPT-2's 12 or Qwen2-7B's 28.
      // `text` where the file is not JSON as written (Python's bare Infinity and NaN).
      const imported = engine.importHfConfig({ ...engine.defaultConfig(), tp: 1 }, c.text ?? JSON.stringify(c.config));
      for (const [key, value] of Object.entries(c.expect)) {
        if (key === 'parameter_count') expect(engine.evaluate(imported.config).parameterCount).toBe(value);
        else expect(imported.config[key as keyof typeof imported.config], key).toBe(value);
      }
      expect(imported.notices.map((n) => n.field)).toEqual(c.notices);
      expect(imported.config.model).toBe('custom');
    });
  }
  it('names what it cannot read and changes nothing', () => {
    for (const bad of hf.bad) {
      const base = { ...engine.defaultConfig(), tp: 4 };
      expect(() => engine.importHfConfig(base, bad.text), bad.name).toThrow(MembudgetError);
      try {
        engine.importHfConfig(base, bad.text);
      } catch (error) {
        expect((error as MembudgetError).problems[0].field).toBe(bad.error_field);
      }
    }
  });
});

describe('imports leave nothing of the model before them', () => {
  it('importing A then B gives exactly what importing B alone gives, for every pair of fixture configs', () => {
    const texts = fixture('hf-configs')
      .cases.filter((c: { config?: unknown }) => c.config)
      .map((c: { config: unknown }) => JSON.stringify(c.config));
    const base = { ...engine.defaultConfig(), tp: 1 };
    let pairs = 0;
    for (const a of texts)
      for (const b of texts) {
        const chained = engine.importHfConfig(engine.importHfConfig(base, a).config, b).config;
        const alone = engine.importHfConfig(base, b).config;
        expect(engine.encodeQuery(chained), `${a.slice(0, 60)} then ${b.slice(0, 60)}`).toBe(engine.encodeQuery(alone));
        pairs += 1;
      }
    expect(pairs).toBeGreaterThanOrEqual(49);
  });

  it('keeps the model’s name, in the link too', () => {
    const imported = engine.importHfConfig(
      { ...engine.defaultConfig(), tp: 1 },
      JSON.stringify({
        _name_or_path: 'org/My-Model',
        model_type: 'llama',
        hidden_size: 64,
        num_hidden_layers: 2,
        num_attention_heads: 4,
        intermediate_size: 128,
        vocab_size: 100,
      }),
    );
    expect(imported.config.name).toBe('org/My-Model');
    expect(engine.encodeQuery(imported.config)).toContain('name=org%2FMy-Model');
  });
});

describe("JSON as Python's json.dump writes it", () => {
  it('reads bare Infinity and NaN as strings and changes nothing inside strings, as the CLI does', () => {
    const flat = flattenJson('{"limit": [0.0, Infinity], "floor":-Infinity, "x" : NaN, "name": "Infinity, NaN", "NaNa": 1}');
    expect(flat.rootType).toBe('object');
    const at = (key: string) => flat.values.find((v) => v.key === key);
    expect(at('limit[1]')).toEqual({ key: 'limit[1]', type: 'string', text: 'Infinity' });
    expect(at('floor')?.text).toBe('-Infinity');
    expect(at('x')?.type).toBe('string');
    expect(at('name')?.text).toBe('Infinity, NaN');
    expect(at('NaNa')).toEqual({ key: 'NaNa', type: 'number', text: '1' });
    expect(flattenJson('{"x": Infinityx}').rootType).toBe('invalid');
    expect(flattenJson('{"x": 1 NaN}').rootType).toBe('invalid');
  });
});
