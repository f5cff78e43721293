// The bad-inputs table (tests/fixtures/bad-inputs.json) through the wasm module, as the page calls it: the
// link codec, the form's one-field-at-a-time path and the config.json importer, each followed by the
// validator. Every error must name the table's field and message, and be exactly what the native CLI
// reports for the same input (tests/cpp/test_bad_inputs.cpp checks the CLI against the table).
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadEngine, loadPlannerEngine, MembudgetError, type Config, type Engine, type Problem } from '../../web/src/engine';
import { runCli } from '../support/cli';
import { fixture, PLANNER_WASM, WASM, WASM_DATA } from '../support/paths';

interface BadInput {
  name: string;
  query?: string;
  json?: string;
  hf?: string;
  field?: string;
  message_contains?: string;
  valid?: boolean;
  verdict?: string;
  /** Why the form, one field at a time, cannot hold the entry (its choice rules change the other field). */
  form_unreachable?: string;
}

const inputs: BadInput[] = fixture('bad-inputs').inputs;
let engine: Engine;
let tools: Engine;

beforeAll(async () => {
  engine = await loadEngine(readFileSync(WASM), readFileSync(WASM_DATA));
  tools = await loadPlannerEngine(readFileSync(PLANNER_WASM));
});

function named(problems: Problem[], entry: BadInput): Problem | undefined {
  return problems.find((p) => p.field === entry.field && p.message.includes(entry.message_contains ?? ''));
}

// The CLI's answer for a link is asked for once: the link path and the form path compare with the same run.
const cliRuns = new Map<string, { status: number; errors: Problem[]; result: any }>();
function cliErrors(args: string[], input = ''): { status: number; errors: Problem[]; result: any } {
  const key = JSON.stringify([args, input]);
  const known = cliRuns.get(key);
  if (known) return known;
  const run = runCli(args, input);
  const result = JSON.parse(run.stdout);
  const answer = { status: run.status, errors: result.errors, result };
  cliRuns.set(key, answer);
  return answer;
}

// Every number finite, no NaN or Infinity written into a text ("ZeRO-Infinity" is a name).
function expectFinite(value: unknown, path = 'result'): void {
  if (typeof value === 'number') expect(Number.isFinite(value), path).toBe(true);
  else if (typeof value === 'string') expect(value.replaceAll('ZeRO-Infinity', ''), path).not.toMatch(/NaN|Infinity|undefined/);
  else if (Array.isArray(value)) value.forEach((item, i) => expectFinite(item, `${path}[${i}]`));
  else if (value && typeof value === 'object') for (const [key, item] of Object.entries(value)) expectFinite(item, `${path}.${key}`);
}

const byKey = (problems: Problem[]) =>
  [...problems].sort((a, b) => `${a.field}\u0000${a.message}`.localeCompare(`${b.field}\u0000${b.message}`));

// The query as the form would enter it, one field at a time (presets first, as the engine orders them), or
// undefined where the query holds what a form cannot (a malformed pair, an unknown or repeated key).
function formEdits(query: string): [string, string][] | undefined {
  const pairs: [string, string][] = [];
  for (const part of query.split('&')) {
    const eq = part.indexOf('=');
    if (eq < 0) return undefined;
    let key: string, text: string;
    try {
      key = decodeURIComponent(part.slice(0, eq));
      text = decodeURIComponent(part.slice(eq + 1).replaceAll('+', ' '));
    } catch {
      return undefined;
    }
    if (text.includes('\u0000') || !engine.fields.some((f) => f.key === key) || pairs.some(([k]) => k === key)) return undefined;
    pairs.push([key, text]);
  }
  const preset = (key: string) => Number(key === 'model' || key === 'gpu');
  return pairs.sort(([a], [b]) => preset(b) - preset(a));
}

describe('the bad-inputs table through the wasm link codec and validator', () => {
  for (const entry of inputs.filter((e) => e.query !== undefined)) {
    it(`${entry.name}: ?${entry.query}`, () => {
      const query = entry.query!;
      const decoded = engine.decodeQuery(query);
      const problems = [...decoded.notices, ...engine.validate(decoded.config)];
      const native = cliErrors(['--json', '--url', query]);
      if (entry.valid) {
        expect(problems).toEqual([]);
        const ledger = engine.evaluate(decoded.config);
        expect(ledger.verdict).toBe(entry.verdict);
        expectFinite(ledger);
        expect(native.status).toBe(entry.verdict === 'fits' ? 0 : 1);
        expect(ledger.totalBytes).toBe(native.result.total_bytes);
        return;
      }
      expect(named(problems, entry), JSON.stringify(problems)).toBeDefined();
      // An invalid configuration is refused; a link whose bad pairs were skipped still computes, finitely.
      if (engine.validate(decoded.config).length > 0) expect(() => engine.evaluate(decoded.config)).toThrow(MembudgetError);
      else expectFinite(engine.evaluate(decoded.config));
      // The same fields and messages, in the same order, as the native CLI.
      expect(native.status).toBe(2);
      expect(problems).toEqual(native.errors);
    });
  }
});

describe('the bad-inputs table through the form path (setField, one field at a time)', () => {
  for (const entry of inputs.filter((e) => e.query !== undefined && !e.valid)) {
    it(`${entry.name}: ?${entry.query}`, () => {
      const edits = formEdits(entry.query!);
      if (!edits || entry.form_unreachable) return; // not something a form can hold; the link path above covers it
      const problems: Problem[] = [];
      let config: Config = engine.defaultConfig();
      for (const [key, text] of edits) {
        try {
          config = engine.setField(config, key, text);
        } catch (error) {
          if (!(error instanceof MembudgetError)) throw error;
          problems.push(...error.problems);
        }
      }
      problems.push(...engine.validate(config));
      expect(named(problems, entry), JSON.stringify(problems)).toBeDefined();
      expect(byKey(problems)).toEqual(byKey(cliErrors(['--json', '--url', entry.query!]).errors));
    });
  }
});

describe('the bad-inputs table through the wasm config.json importer', () => {
  for (const entry of inputs.filter((e) => e.hf !== undefined)) {
    it(entry.name, () => {
      const base = engine.defaultConfig();
      let problems: Problem[] = [];
      try {
        tools.importHfConfig(base, entry.hf!);
      } catch (error) {
        if (!(error instanceof MembudgetError)) throw error;
        problems = error.problems;
      }
      expect(named(problems, entry), JSON.stringify(problems)).toBeDefined();
      const native = cliErrors(['--json', '--hf-config', '-'], entry.hf);
      expect(native.status).toBe(2);
      expect(problems).toEqual(native.errors);
    });
  }
});

describe('a Config set directly with values no parser would produce', () => {
  it('is refused field by field, never computed', () => {
    for (const [key, value] of [
      ['tp', Number.NaN],
      ['seq', Number.POSITIVE_INFINITY],
      ['params', 1e308],
      ['mb', -1],
      ['dp', 0.5],
    ] as const) {
      const config = { ...engine.defaultConfig(), [key]: value };
      expect(
        engine.validate(config).map((p) => p.field),
        key,
      ).toContain(key);
      expect(() => engine.evaluate(config)).toThrow(MembudgetError);
    }
  });
});
