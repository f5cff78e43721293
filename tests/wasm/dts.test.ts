// The hand-written membudget.d.ts against the real module: the functions and value objects that
// wasm/bindings.cpp registers, the ones the .d.ts declares, and the ones the built module has, must be
// the same sets; and the TypeScript that uses the .d.ts must type-check.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';
import createMembudget from '../../web/src/wasm/membudget.js';
import type { MembudgetModule } from '../../web/src/wasm/membudget.js';
import createMembudgetPlanner from '../../web/src/wasm/membudget-planner.js';
import type { PlannerModule } from '../../web/src/wasm/membudget-planner.js';
import { inflateModuleData, writeModuleData } from '../../web/src/wasm-data';
import { PLANNER_WASM, ROOT, WASM, WASM_DATA } from '../support/paths';

const DTS = resolve(ROOT, 'web/src/wasm/membudget.d.ts');
const PLANNER_DTS = resolve(ROOT, 'web/src/wasm/membudget-planner.d.ts');
const BINDINGS = resolve(ROOT, 'wasm/bindings.cpp');

let module: MembudgetModule;
let planner: PlannerModule;

beforeAll(async () => {
  // The page's module as the page loads it: its code, then its data file copied in before its constructors run.
  const code = await WebAssembly.compile(readFileSync(WASM));
  const data = await inflateModuleData(readFileSync(WASM_DATA));
  module = await createMembudget({
    instantiateWasm(imports, receiveInstance) {
      void WebAssembly.instantiate(code, imports).then((instance) => {
        writeModuleData(code, instance, data);
        receiveInstance(instance, code);
      });
      return {};
    },
  });
  planner = await createMembudgetPlanner({ wasmBinary: readFileSync(PLANNER_WASM) });
});

/** Member names of each interface declared in the .d.ts. */
function declaredInterfaces(file = DTS): Map<string, string[]> {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, true);
  const interfaces = new Map<string, string[]>();
  source.forEachChild((node) => {
    if (ts.isInterfaceDeclaration(node))
      interfaces.set(
        node.name.text,
        node.members.map((m) => (m.name && (ts.isIdentifier(m.name) || ts.isStringLiteral(m.name)) ? m.name.text : '')),
      );
  });
  return interfaces;
}

/** `function("name", …)` and `value_object<T>("Name").field("key", …)` registrations in bindings.cpp. */
function registered(): { functions: string[]; planner: string[]; objects: Map<string, string[]> } {
  const text = readFileSync(BINDINGS, 'utf8');
  // Functions inside `#ifdef MEMBUDGET_WASM_PLANNER` exist only in the planner's module.
  const plannerOnly = [...text.matchAll(/#ifdef MEMBUDGET_WASM_PLANNER([\s\S]*?)#endif/g)].map((m) => m[1]).join('\n');
  const planner = [...plannerOnly.matchAll(/\bfunction\("([^"]+)"/g)].map((m) => m[1]);
  const functions = [...text.matchAll(/\bfunction\("([^"]+)"/g)].map((m) => m[1]).filter((name) => !planner.includes(name));
  const objects = new Map<string, string[]>();
  for (const block of text.matchAll(/value_object<[^>]+>\("([^"]+)"\)([^;]+);/g))
    objects.set(
      block[1],
      [...block[2].matchAll(/\.field\("([^"]+)"/g)].map((m) => m[1]),
    );
  return { functions, planner, objects };
}

const sorted = (names: Iterable<string>) => [...names].sort();

/** `ChoiceNames<E>` lists in engine/include/membudget/base/choices.hpp: each enum's ids, in order. */
function engineChoices(): Map<string, string[]> {
  const text = readFileSync(resolve(ROOT, 'engine/include/membudget/base/choices.hpp'), 'utf8');
  const out = new Map<string, string[]>();
  for (const m of text.matchAll(/struct ChoiceNames<(\w+)> \{\s*static constexpr std::array<std::string_view, \d+> names\{([^}]*)\}/g))
    out.set(
      m[1]!,
      [...m[2]!.matchAll(/"([^"]*)"/g)].map((id) => id[1]!),
    );
  return out;
}

/** The string-literal unions the .d.ts declares (`export type X = 'a' | 'b'`). */
function declaredUnions(): Map<string, string[]> {
  const source = ts.createSourceFile(DTS, readFileSync(DTS, 'utf8'), ts.ScriptTarget.ES2022, true);
  const out = new Map<string, string[]>();
  source.forEachChild((node) => {
    if (ts.isTypeAliasDeclaration(node) && ts.isUnionTypeNode(node.type))
      out.set(
        node.name.text,
        node.type.types.map((t) => (ts.isLiteralTypeNode(t) && ts.isStringLiteral(t.literal) ? t.literal.text : '?')),
      );
  });
  return out;
}

describe('membudget.d.ts', () => {
  it('declares exactly the functions bindings.cpp registers, and each is a function of the module', () => {
    const declared = declaredInterfaces().get('MembudgetModule') ?? [];
    const { functions } = registered();
    expect(sorted(declared)).toEqual(sorted(functions));
    for (const name of functions) expect(typeof (module as unknown as Record<string, unknown>)[name], name).toBe('function');
  });

  it('declares the planner module’s own functions, which only it has', () => {
    const declared = declaredInterfaces(PLANNER_DTS).get('PlannerModule') ?? [];
    const { functions, planner: own } = registered();
    expect(own.length).toBeGreaterThan(0);
    expect(sorted(declared)).toEqual(sorted(own));
    for (const name of [...functions, ...own]) expect(typeof (planner as unknown as Record<string, unknown>)[name], name).toBe('function');
    for (const name of own) expect((module as unknown as Record<string, unknown>)[name], name).toBeUndefined();
    const raw = planner.plan({
      base: planner.defaultConfig(),
      gpus: 256,
      globalBatch: 1024,
      tpAcrossNodes: false,
      unevenPipeline: true,
      maxMicroBatch: 4,
      maxCp: 4,
      includeTight: false,
      layoutBegin: 0,
      layoutEnd: 2,
      maxRows: 100,
      maxEvaluations: 2e6,
    });
    // plan-rows.ts's PlanRow has exactly the columns of the engine's plan row table, which the flat rows follow.
    const columns = planner.planRowColumns();
    expect(sorted(declaredInterfaces(resolve(ROOT, 'web/src/plan-rows.ts')).get('PlanRow') ?? [])).toEqual(
      sorted(columns.map((c) => c.key)),
    );
    expect(raw.rows.length % columns.length).toBe(0);
    expect(sorted(Object.keys(raw))).toEqual(sorted(declaredInterfaces().get('RawPlan')!));
    expect(raw.rows).toBeInstanceOf(Float64Array);
    // The serving plan's objects have exactly the declared members.
    const interfaces = declaredInterfaces();
    const model = planner.setField(planner.defaultConfig(), 'model', 'llama-3.1-8b').config;
    const request = {
      base: planner.setField(model, 'mode', 'inference').config,
      gpus: 2,
      ttftLimitSeconds: 0,
      tpotLimitSeconds: 0,
      maxConcurrency: 8,
      tpAcrossNodes: false,
    };
    const serving = planner.planServing(request);
    expect(sorted(Object.keys(serving))).toEqual(sorted(interfaces.get('ServingPlan')!));
    expect(serving.rows.length).toBeGreaterThan(0);
    expect(sorted(Object.keys(serving.rows[0]!))).toEqual(sorted(interfaces.get('ServingPlanRow')!));
    const gpus = planner.planServingEachGpu(request);
    expect(sorted(Object.keys(gpus[0]!))).toEqual(sorted(interfaces.get('GpuServingPlan')!));
  });

  it('declares every value object with exactly its registered fields', () => {
    const declared = declaredInterfaces();
    for (const [name, fields] of registered().objects) {
      expect(declared.has(name), name).toBe(true);
      expect(sorted(declared.get(name) ?? []), name).toEqual(sorted(fields));
    }
  });

  it('declares each of the engine’s choices as the union of its ids, and types every choice field with it', () => {
    const engine = engineChoices();
    expect(engine.size).toBeGreaterThan(10);
    expect(declaredUnions()).toEqual(engine);
    // Each choice field of the table that is an enum has its union, with the field's choices.
    const source = ts.createSourceFile(DTS, readFileSync(DTS, 'utf8'), ts.ScriptTarget.ES2022, true);
    const configTypes = new Map<string, string>();
    source.forEachChild((node) => {
      if (ts.isInterfaceDeclaration(node) && node.name.text === 'Config')
        for (const m of node.members)
          if (ts.isPropertySignature(m) && m.type && ts.isIdentifier(m.name)) configTypes.set(m.name.text, m.type.getText(source));
    });
    const enumFields = module.fields().filter((f) => f.kind === 'choice' && f.key !== 'model' && f.key !== 'gpu');
    expect(enumFields.length).toBe(21);
    for (const field of enumFields) {
      const union = engine.get(configTypes.get(field.key) ?? '');
      expect(union, field.key).toEqual(field.choices);
    }
  });

  it('matches the shapes the module returns at run time', () => {
    const declared = declaredInterfaces();
    const keys = (value: object) => sorted(Object.keys(value));
    const config = module.defaultConfig();
    const result = module.evaluate(config);
    expect(keys(config)).toEqual(sorted(declared.get('Config')!));
    expect(keys(result)).toEqual(sorted(declared.get('Result')!));
    expect(keys(result.lines[0])).toEqual(sorted(declared.get('Line')!));
    expect(keys(module.decodeQuery('tp=2'))).toEqual(sorted(declared.get('ParsedConfig')!));
    expect(keys(module.fields()[0])).toEqual(sorted(declared.get('Field')!));
    expect(keys(module.modelPresets()[0])).toEqual(sorted(declared.get('ModelPreset')!));
    expect(keys(module.gpuPresets()[0])).toEqual(sorted(declared.get('GpuPreset')!));
    expect(keys(module.formats()[0])).toEqual(sorted(declared.get('Format')!));
    expect(keys(module.validate({ ...config, tp: 0 })[0])).toEqual(sorted(declared.get('Problem')!));
    const kinds = new Set(module.fields().map((f) => f.kind));
    expect([...kinds].every((k) => ['integer', 'number', 'boolean', 'choice', 'text'].includes(k))).toBe(true);
  });
});
