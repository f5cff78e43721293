// The wasm build under Node, through the typed layer the page uses, against the same fixtures as the
// Catch2 tests and against the native CLI.
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadEngine, MembudgetError, type Config, type Engine } from '../../web/src/engine';
import { START } from '../../web/src/examples';
import { essentials } from '../../web/src/form';
import { resultJson } from '../../web/src/result-json';
import { readLink } from '../../web/src/url-state';
import { cliResultForQuery, runCli } from '../support/cli';
import { fixture, WASM, WASM_DATA } from '../support/paths';

let engine: Engine;

beforeAll(async () => {
  engine = await loadEngine(readFileSync(WASM), readFileSync(WASM_DATA));
});

const chapter = fixture('chapter');

function configFrom(object: Record<string, unknown>): Config {
  // The page's path: each key as text through setField, presets first as the engine orders them.
  const entries = Object.entries(object).sort(([a], [b]) => Number(b === 'model' || b === 'gpu') - Number(a === 'model' || a === 'gpu'));
  return entries.reduce((config, [key, value]) => engine.setField(config, key, String(value)), engine.defaultConfig());
}

function lineBytes(config: Config): Record<string, number> {
  return Object.fromEntries(engine.evaluate(config).lines.map((l) => [l.id, l.bytes]));
}

describe('the chapter fixtures, as in the Catch2 tests', () => {
  for (const example of [...chapter.checklists, ...chapter.pitfalls]) {
    it(`${example.name} (${example.section})`, () => {
      const config = configFrom(example.config);
      const ledger = engine.evaluate(config);
      const expected = example.expect;
      for (const [id, bytes] of Object.entries(expected.lines ?? {})) expect(lineBytes(config)[id], id).toBe(bytes);
      if (expected.total_bytes !== undefined) expect(ledger.totalBytes).toBe(expected.total_bytes);
      if (expected.verdict !== undefined) expect(ledger.verdict).toBe(expected.verdict);
      for (const field of expected.warning_fields ?? [])
        expect(ledger.warnings.some((w) => w.field === field && w.message.includes(expected.warning_contains))).toBe(true);
      expect(ledger.totalBytes).toBe(ledger.lines.reduce((sum, l) => sum + l.bytes, 0));
    });
  }

  for (const table of chapter.static_tables) {
    it(`${table.name}: static bytes through the ledger without sharding`, () => {
      const config = configFrom({ params: table.params, static_bytes: table.static_bytes, tp: 1, pp: 1, dp: 1, zero: 0 });
      const bytes = lineBytes(config);
      expect(bytes.parameters + bytes.gradients + bytes.optimizer).toBe(table.expect_bytes.total);
      expect(bytes.parameters).toBe(table.expect_bytes.parameters);
      expect(bytes.gradients).toBe(table.expect_bytes.gradients);
    });
  }

  it('the 66× reduction is exactly 65.5×', () => {
    const none = lineBytes(configFrom(chapter.checklists[3].config)).activations;
    const full = lineBytes(configFrom(chapter.checklists[4].config)).activations;
    expect(none / full).toBe(chapter.checkpointing_reduction.expect_ratio);
  });
});

describe('wasm and native agree', () => {
  it('on every fixture configuration, as the CLI’s eval JSON, byte for byte', () => {
    for (const example of [...chapter.checklists, ...chapter.pitfalls]) {
      const config = configFrom(example.config);
      const native = runCli(['eval', '-'], JSON.stringify(example.config)).stdout;
      expect(resultJson(engine, config) + '\n').toBe(native);
    }
  });

  it('on every kind of result the record tables describe, as the CLI’s eval JSON, byte for byte', () => {
    // Each exercises a part of the tables: serving (spliced, nested groups, roofline), pipeline stages (lines by id),
    // offload (host lines), MoE and MLA, the optimizer-step peak phase, the reserved bytes, a refused configuration
    // (method and errors only), a method's own ledger, a measured family's band.
    const queries = [
      'model=mixtral-8x7b&gpu=h200&mode=inference&tp=2&dp=1&seq=8192&mb=64',
      'model=deepseek-v3&gpu=h200&mode=inference&tp=8&dp=2&seq=4096&mb=32&framework=sglang',
      'model=llama-3.1-70b&gpu=h100-80gb&tp=4&pp=4&dp=8&mb=2&microbatches=16&method=membudget&ckpt=selective',
      'model=llama-3.1-70b&method=membudget&framework=deepspeed&zero=3&offload=all&dp=8',
      'model=qwen3-30b-a3b&method=membudget&framework=torchtitan&ep=8&dp=8&zero=3&compile=true',
      'model=llama-3.1-8b&method=membudget&framework=torchtitan&dp=8&zero=3&ckpt=none',
      'model=llama-3.1-8b&tp=3',
      'model=llama-3.1-8b&method=korthikanti&ckpt=selective',
      'model=llama-3.1-8b&method=zero&zero=3&dp=64',
    ];
    for (const query of queries) {
      const decoded = engine.decodeQuery(query);
      const native = runCli(['--json', '--url', query]).stdout;
      expect(native, query).toMatch(/^\{/);
      expect(resultJson(engine, decoded.config) + '\n', query).toBe(native);
    }
  });

  it('on a run with a token budget and a price, as the CLI’s eval JSON, byte for byte', () => {
    for (const extra of [{ train_tokens: 15e12 }, { train_tokens: 15e12, gpu_hour_usd: 2.49 }, { train_tokens: 1 }]) {
      const object = { model: 'llama-3.1-70b', gpu: 'h200', tp: 8, pp: 2, dp: 64, gpus: 1024, sp: true, ...extra };
      const native = runCli(['eval', '-'], JSON.stringify(object)).stdout;
      expect(JSON.parse(native).run).not.toBeNull();
      expect(resultJson(engine, configFrom(object)) + '\n').toBe(native);
    }
  });

  it('on the step-time parts: the formulas and assumptions the page module leaves out are the CLI’s', () => {
    const steps = JSON.parse(runCli(['step-parts']).stdout) as {
      parts: { id: string; label: string; formula: string }[];
      assumptions: string;
    };
    const st = engine.evaluate(engine.decodeQuery('model=llama-3.1-8b&gpu=h100-80gb&tp=1&dp=8').config).stepTime!;
    expect(st.parts.map((p) => ({ id: p.id, label: p.label, formula: p.formula }))).toEqual(steps.parts);
    expect(steps.parts.every((p) => p.formula.length > 20)).toBe(true);
    expect(st.assumptions).toBe(steps.assumptions);
  });

  it('on links: the wasm codec and the CLI read the same query the same way', () => {
    const query = 'model=llama-3.1-405b&tp=8&pp=16&dp=64&cp=2&sp=true&zero=3&mb=2&seq=16384&ckpt=selective&gpu=h200';
    const decoded = engine.decodeQuery(query);
    expect(decoded.notices).toEqual([]);
    const native = cliResultForQuery(query);
    expect(engine.encodeQuery(decoded.config)).toBe(native.query);
    expect(engine.evaluate(decoded.config).totalBytes).toBe(native.total_bytes);
  });
});

describe('errors are values in C++ and thrown errors in TypeScript', () => {
  it('a text field refuses bidirectional formatting characters and controls, as the CLI does', () => {
    for (const [name, reason] of [
      ['file\u202Egnp.exe', 'a bidirectional formatting character at byte 4'],
      ['\u2066x', 'a bidirectional formatting character at byte 0'],
      ['a\u009B', 'a control character at byte 1'],
    ]) {
      expect(() => engine.setField(engine.defaultConfig(), 'name', name!)).toThrow(reason);
      expect(runCli(['--name', name!]).stderr).toContain(reason);
    }
    expect(engine.setField(engine.defaultConfig(), 'name', 'Llama 日本語 é').name).toBe('Llama 日本語 é');
  });

  it('evaluate throws a MembudgetError naming the field and the range', () => {
    const config = { ...engine.defaultConfig(), tp: 0 };
    expect(() => engine.evaluate(config)).toThrow(MembudgetError);
    try {
      engine.evaluate(config);
    } catch (error) {
      expect((error as MembudgetError).problems).toEqual([{ field: 'tp', message: 'tp must be an integer from 1 to 1,024; got 0' }]);
    }
    expect(engine.validate(config)).toHaveLength(1);
  });

  it('setField refuses text that is not a value of the field, and leaves NaN and Infinity out', () => {
    const config = engine.defaultConfig();
    for (const text of ['abc', 'NaN', 'Infinity', '1e999', '', '<script>']) {
      expect(() => engine.setField(config, 'seq', text), text).toThrow(/seq must be an integer from 1 to 16,777,216/);
    }
    expect(() => engine.setField(config, 'nope', '1')).toThrow(/unknown key "nope"/);
    expect(engine.setField(config, 'seq', '8192').seq).toBe(8192);
  });

  it('a non-finite number set directly is caught by the validator, not computed', () => {
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, -1, 0.5]) {
      const problems = engine.validate({ ...engine.defaultConfig(), mb: bad });
      expect(problems.map((p) => p.field)).toContain('mb');
    }
  });

  it('a partial object (a hand-made call) is completed from the defaults instead of crashing', () => {
    const ledger = engine.evaluate({ tp: 4 } as unknown as Config);
    expect(ledger.verdict).toBeTruthy();
    expect(ledger.lines.every((l) => Number.isFinite(l.bytes))).toBe(true);
  });

  it('a preset choice fills the architecture, explicit keys override it', () => {
    let config = engine.setField(engine.defaultConfig(), 'model', 'llama-3.1-8b');
    expect(config.hidden).toBe(4096);
    expect(engine.evaluate(config).parameterCount).toBe(8030261248);
    config = engine.setField(config, 'gpu', 'h100-80gb');
    expect(engine.evaluate(config).capacityBytes).toBe(81559 * 2 ** 20);
    expect(engine.encodeQuery(config)).toBe('model=llama-3.1-8b&gpu=h100-80gb');
  });
});

describe('the link codec', () => {
  it('reports malformed, unknown and repeated parameters as notices and skips them', () => {
    const decoded = engine.decodeQuery('?tp=2&tp=4&zz=1&seq=abc&embed=1&unit=gib');
    expect(decoded.config.tp).toBe(4);
    expect(decoded.config.seq).toBe(4096);
    expect(decoded.notices.map((n) => n.field).sort()).toEqual(['seq', 'tp', 'zz']);
  });

  it('round-trips 2,000 random valid configurations exactly', () => {
    let seed = 12345;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)];
    for (let i = 0; i < 2000; i++) {
      let config = engine.setField(engine.defaultConfig(), 'model', pick(engine.modelPresets).id);
      config = engine.setField(config, 'gpu', pick(engine.gpuPresets).id);
      config = {
        ...config,
        tp: pick([1, 2, 4, 8]),
        pp: pick([1, 2, 4]),
        dp: pick([1, 8, 1024]),
        sp: random() < 0.5,
        zero: pick([0, 1, 2, 3]),
        ckpt: pick(['none', 'selective', 'full']),
        headroom: random() * 0.99,
        gpu_gb: 0.001 + random() * 1000,
        buffers_gb: random() * 8,
      };
      const query = engine.encodeQuery(config);
      const decoded = engine.decodeQuery(query);
      expect(decoded.notices, query).toEqual([]);
      expect(decoded.config, query).toEqual(config);
    }
  });
});

describe('the run’s GPUs', () => {
  it('are the engine’s world size, the count its GPU-hours are on: with EP, context parallelism and a stated count', () => {
    for (const query of [
      'model=llama-3.1-70b&gpu=h100-80gb&tp=8&pp=2&dp=4',
      'model=mixtral-8x7b&gpu=h100-80gb&tp=2&ep=8&dp=8',
      'model=llama-3.1-8b&gpu=h100-80gb&tp=2&cp=2&dp=4&seq=32768',
      'model=llama-3.1-8b&gpu=h100-80gb&gpus=64&tp=2',
    ]) {
      const config = engine.decodeQuery(`${query}&train_tokens=1000000000000`).config;
      const st = engine.evaluate(config).stepTime!;
      expect(st.runSteps, query).toBeGreaterThan(0);
      expect(st.runGpuHours, query).toBe((engine.worldSize(config) * st.runSeconds) / 3600);
    }
  });
});

describe('a link’s configuration, as the page reads it', () => {
  const start = () => engine.decodeQuery(START.query).config;

  it('is stated by any field of the field table, a new field included without an edit of the page', () => {
    const texts = engine.fieldTexts(engine.defaultConfig());
    for (const { key } of engine.fields) {
      const query = `${key}=${encodeURIComponent(texts[key])}`;
      const link = readLink(engine, `?${query}&embed=1`);
      expect(link.config, key).toEqual(engine.decodeQuery(query).config);
      expect(link.config, key).not.toEqual(start());
      expect(link.view.embed).toBe(true);
    }
  });

  it('opens the newcomer’s start where the link holds the view and the Hub source alone, or nothing', () => {
    for (const search of ['', '?', '?embed=1', '?unit=gib&embed=1', '?hf=Qwen/Qwen2-7B&hf_revision=main&hf_file=config.json']) {
      const link = readLink(engine, search);
      expect(link.config, search).toEqual(start());
      expect(link.notices, search).toEqual([]);
    }
    // A Hub id without the model's fields is offered, not claimed as the source of fields the link does not hold.
    const hub = readLink(engine, '?hf=Qwen/Qwen2-7B');
    expect(hub.view.hub).toBeUndefined();
    expect(hub.hubToFetch).toBe('Qwen/Qwen2-7B@main');
  });

  it('is stated by a parameter the engine skips, which the page then names, as before', () => {
    for (const search of ['?TP=8', '?embed=1&zz=1', '?%ZZ=1']) {
      const link = readLink(engine, search);
      expect(link.config, search).toEqual(engine.defaultConfig());
      expect(link.notices.length, search).toBe(1);
    }
  });
});

describe('the field table answers for the form', () => {
  it('which fields apply and what each 0 stands for, as the CLI’s field table says', () => {
    const fields = JSON.parse(runCli(['fields']).stdout) as { key: string; applies: string; help: string; section: string }[];
    const dense = configFrom({ model: 'llama-3.1-70b', tp: 8, pp: 3, dp: 4 });
    const states = engine.fieldStates(dense);
    // Every field conditioned on MoE, MLA or adapters is hidden for a dense, full-training model; none that
    // applies always is.
    for (const f of fields) {
      if (/MoE|MLA|LoRA|inference/.test(f.applies)) expect(states.hidden, f.key).toContain(f.key);
      if (f.applies === '') expect(states.hidden, f.key).not.toContain(f.key);
    }
    expect(states.auto.gpus).toBe(96);
    expect(engine.worldSize(dense)).toBe(96);
    expect(states.auto.first_stage_layers).toBe(26);
    expect(states.auto.last_stage_layers).toBe(27);
    expect(states.auto.head_dim).toBe(128);
    expect(engine.fieldStates(configFrom({ model: 'mixtral-8x7b' })).hidden).not.toContain('ep');
  });

  it('the essentials the form shows first, in their order, are the field table’s, in the CLI and the wasm', () => {
    const cli = JSON.parse(runCli(['fields']).stdout) as { key: string; essential: number }[];
    expect(engine.fields.map((f) => [f.key, f.essential])).toEqual(cli.map((f) => [f.key, f.essential]));
    expect(essentials(engine.fields).map((f) => f.key)).toEqual([
      'model',
      'gpu',
      'gpus',
      'mode',
      'finetune',
      'lora_rank',
      'lora_targets',
      'tp',
      'pp',
      'dp',
      'cp',
      'ep',
      'mb',
      'seq',
      'microbatches',
      'ckpt',
      'zero',
      'sp',
      'method',
      'framework',
    ]);
    // One place each: no two essentials share a rank.
    expect(essentials(engine.fields).map((f) => f.essential)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
  });

  it('the page’s module leaves the help out; the generated table beside the page has the CLI’s', async () => {
    const { FIELD_TEXT } = await import('../../web/src/generated/field-text');
    const fields = JSON.parse(runCli(['fields']).stdout) as { key: string; help: string; section: string }[];
    for (const f of fields) expect(FIELD_TEXT[f.key], f.key).toEqual({ help: f.help, section: f.section });
    expect(engine.fields.every((f) => f.help === '')).toBe(true);
  });
});
