// The module's declarations against the real module: the functions and value objects that wasm/bindings.cpp
// registers, the ones the hand-written membudget.d.ts declares, and the ones the built module has, must be the same
// sets; every record a function returns has exactly the members web/src/generated/records.ts (written from the
// engine's record tables) declares, at every depth; and the TypeScript that uses them must type-check.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';
import createMembudget from '../../web/src/wasm/membudget.js';
import type { MembudgetModule } from '../../web/src/wasm/membudget.js';
import createMembudgetPlanner from '../../web/src/wasm/membudget-planner.js';
import type { PlannerModule } from '../../web/src/wasm/membudget-planner.js';
import { flattenJson } from '../../web/src/engine';
import { inflateModuleData, writeModuleData } from '../../web/src/wasm-data';
import { PLANNER_WASM, ROOT, WASM, WASM_DATA } from '../support/paths';

const DTS = resolve(ROOT, 'web/src/wasm/membudget.d.ts');
const PLANNER_DTS = resolve(ROOT, 'web/src/wasm/membudget-planner.d.ts');
const RECORDS = resolve(ROOT, 'web/src/generated/records.ts');
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

/** Each interface of records.ts: its members and the interfaces their types name (`Line[]`, `StepTime | null`). */
function recordShapes(): Map<string, Map<string, string[]>> {
  const source = ts.createSourceFile(RECORDS, readFileSync(RECORDS, 'utf8'), ts.ScriptTarget.ES2022, true);
  const out = new Map<string, Map<string, string[]>>();
  source.forEachChild((node) => {
    if (!ts.isInterfaceDeclaration(node)) return;
    const members = new Map<string, string[]>();
    for (const m of node.members)
      if (ts.isPropertySignature(m) && m.type && ts.isIdentifier(m.name))
        members.set(
          m.name.text,
          [...m.type.getText(source).matchAll(/\b[A-Z]\w*/g)].map((t) => t[0]),
        );
    out.set(node.name.text, members);
  });
  return out;
}

/** The value has exactly the declared members, and so has every record inside it (the first of a list). */
function expectShape(shapes: Map<string, Map<string, string[]>>, value: unknown, name: string, path = name): void {
  const members = shapes.get(name);
  expect(members, `${path}: ${name} is declared`).toBeDefined();
  expect(sorted(Object.keys(value as object)), path).toEqual(sorted(members!.keys()));
  for (const [key, types] of members!) {
    const inner = (value as Record<string, unknown>)[key];
    const item = Array.isArray(inner) ? inner[0] : inner;
    const record = types.find((t) => shapes.has(t) && t !== 'Config' && t !== 'Record' && t !== 'Partial');
    if (record && item !== null && item !== undefined && typeof item === 'object') expectShape(shapes, item, record, `${path}.${key}`);
  }
}

/** `ChoiceNames<E>` lists in the engine's public headers (choices.hpp, and FieldKind's in fields.hpp): each enum's ids. */
function engineChoices(): Map<string, string[]> {
  const text = ['base/choices.hpp', 'model/fields.hpp']
    .map((h) => readFileSync(resolve(ROOT, 'engine/include/membudget', h), 'utf8'))
    .join('\n');
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
  const source = ts.createSourceFile(RECORDS, readFileSync(RECORDS, 'utf8'), ts.ScriptTarget.ES2022, true);
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
    // The generated PlanRow has exactly the columns of the engine's plan row table, which the flat rows follow.
    const columns = planner.planRowColumns();
    expect(sorted(declaredInterfaces(RECORDS).get('PlanRow') ?? [])).toEqual(sorted(columns.map((c) => c.key)));
    expect(raw.rows.length % columns.length).toBe(0);
    expect(sorted(Object.keys(raw))).toEqual(sorted(declaredInterfaces().get('RawPlan')!));
    // The request the page built crossed whole: the engine's own defaults, as the generated PlanRequest types them.
    expectShape(recordShapes(), planner.defaultPlanRequest(), 'PlanRequest');
    expect(raw.rows).toBeInstanceOf(Float64Array);
    // The serving plan's records have exactly their generated members, rows and each GPU's recommended row included.
    const shapes = recordShapes();
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
    expect(serving.rows.length).toBeGreaterThan(0);
    expectShape(shapes, serving, 'ServingPlan');
    const gpus = planner.planServingEachGpu(request);
    expect(gpus.some((g) => g.recommended !== null)).toBe(true);
    for (const gpu of gpus) expectShape(shapes, gpu, 'GpuServingPlan');
  });

  it('types every value object (an input) with exactly its registered fields, from its record table', () => {
    const declared = declaredInterfaces(RECORDS);
    expect([...registered().objects.keys()].sort()).toEqual(['HfValue', 'PlanRequest', 'ServingPlanRequest']);
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
    const source = ts.createSourceFile(RECORDS, readFileSync(RECORDS, 'utf8'), ts.ScriptTarget.ES2022, true);
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

  it('matches the shapes the module returns at run time, every record at every depth', () => {
    const shapes = recordShapes();
    const config = module.defaultConfig();
    const inference = module.setField(module.setField(config, 'model', 'mixtral-8x7b').config, 'mode', 'inference').config;
    const offload = module.decodeQuery(
      'model=llama-3.1-70b&method=membudget&framework=deepspeed&zero=3&offload=all&train_tokens=1e12&gpu_hour_usd=2',
    );
    expect(offload.problems).toEqual([]);
    expectShape(shapes, config, 'Config');
    for (const c of [config, inference, offload.config]) {
      expectShape(shapes, module.evaluate(c), 'Result');
      expectShape(shapes, module.fieldStates(c), 'FieldStates');
    }
    expect(module.evaluate(offload.config).stepTime?.runSteps).toBeGreaterThan(0);
    expect(module.evaluate(inference).servingTime).not.toBeNull();
    expectShape(shapes, module.evaluate({ ...config, tp: 0 }), 'Result');
    expectShape(shapes, module.decodeQuery('tp=2&nope=1'), 'ParsedConfig');
    for (const f of module.fields()) expectShape(shapes, f, 'Field');
    expectShape(shapes, module.modelPresets()[0], 'ModelPreset');
    expectShape(shapes, module.gpuPresets()[0], 'GpuPreset');
    expectShape(shapes, module.formats()[0], 'Format');
    expectShape(shapes, module.validate({ ...config, tp: 0 })[0], 'Problem');
    expectShape(shapes, module.measurableLines(config)[0], 'Line');
    // The planner's module's own records.
    for (const column of planner.compare(config)) expectShape(shapes, column, 'MethodColumn');
    const slow = planner.decodeQuery('model=llama-3.1-405b&gpu=a100-40gb&tp=1&dp=8').config;
    for (const advice of planner.advise(slow)) expectShape(shapes, advice, 'Advice');
    expect(planner.advise(slow).length).toBeGreaterThan(0);
    expectShape(shapes, planner.exportConfig(config, 'megatron'), 'ConfigExport');
    expectShape(
      shapes,
      planner.importConfig(config, 'megatron', 'object', '', [], [['--tensor-model-parallel-size', '4']]),
      'ConfigImport',
    );
    expectShape(shapes, planner.importHfFields(config, 'invalid', []), 'HfImport');
    const measured = readFileSync(resolve(ROOT, 'tests/fixtures/measured-sample.json'), 'utf8');
    const flat = flattenJson(measured);
    expectShape(shapes, planner.readMeasuredFile(flat.rootType, flat.values, flat.error), 'MeasuredFile');
  });
});
