// The one place that touches the WebAssembly module: loads it once (a cached promise) and turns the
// engine's error values into thrown MembudgetErrors. Every other file imports from here.
import createMembudget from './wasm/membudget.js';
import type {
  Advice,
  Checkpointing,
  Config,
  ConfigExport,
  ConfigImport,
  Field,
  FieldStates,
  Format,
  GpuPreset,
  HfValue,
  ImportFormat,
  Line,
  LineId,
  Method,
  MembudgetModule,
  MethodColumn,
  ModelPreset,
  Phase,
  PlanRequest,
  PlanRowColumn,
  Problem,
  RawGpuPlan,
  RawPlan,
  Result,
  GpuServingPlan,
  ServingPlan,
  ServingPlanRequest,
  ServingPlanRow,
  Stage,
  Tensor,
  Unmapped,
  Verdict,
} from './wasm/membudget.js';
import type { PlannerModule } from './wasm/membudget-planner.js';
import { flattenDocument, type ParsedImport } from './import-parse';
import dataUrl from './wasm/membudget-data.bin?url';
import wasmUrl from './wasm/membudget.wasm?url';
import { inflateModuleData, writeModuleData } from './wasm-data';
import { parseJsonWithPythonConstants } from './python-json';
import { STEP_ASSUMPTIONS, STEP_PART_FORMULA } from './generated/step-text';
import { decodeRows, encodeRows, type PlanRow } from './plan-rows';
import plannerWasmUrl from './wasm/membudget-planner.wasm?url';

export type {
  ImportFormat,
  Advice,
  ConfigExport,
  ConfigImport,
  Unmapped,
  Checkpointing,
  Config,
  Field,
  FieldStates,
  Format,
  GpuPreset,
  Line,
  LineId,
  Method,
  MethodColumn,
  ModelPreset,
  Phase,
  PlanRequest,
  Problem,
  Result,
  GpuServingPlan,
  ServingPlan,
  ServingPlanRequest,
  ServingPlanRow,
  Stage,
  Tensor,
  Verdict,
};
export type { PlanRow } from './plan-rows';

/** The row to run: the fastest that fits (index into rows; -1 when there are none) and why. */
export interface Recommendation {
  index: number;
  reason: string;
}

export interface Plan extends Omit<RawPlan, 'rows' | 'recommendedIndex' | 'recommendedReason'> {
  rows: PlanRow[];
  recommended: Recommendation;
}

/** One GPU preset's plan of the same job (the CLI's `plan --which-gpu`): its recommended row, or null. */
export interface GpuPlan extends Omit<RawGpuPlan, 'rows' | 'recommendedReason'> {
  recommended: PlanRow | null;
  reason: string;
}

/** The step parts' formulas and the assumptions, which the page's module leaves out (engine/src/base/page_text.hpp). */
function withStepText(result: Result): Result {
  const st = result.stepTime;
  if (st !== null) {
    for (const part of st.parts) part.formula ||= STEP_PART_FORMULA[part.id] ?? '';
    st.assumptions ||= STEP_ASSUMPTIONS;
  }
  return result;
}

/** A valid configuration's ledger. */
export interface Ledger extends Result {
  verdict: Verdict;
}

/** Thrown for input the engine refuses; `problems` name each field and its allowed range. */
export class MembudgetError extends Error {
  readonly problems: Problem[];

  constructor(problems: Problem[]) {
    super(problems.map((p) => p.message).join('; ') || 'invalid configuration');
    this.name = 'MembudgetError';
    this.problems = problems;
  }
}

/** A measured file as the engine read it (Engine.readMeasuredFile). */
export interface MeasuredFileRead {
  config: Config;
  configProblems: Problem[];
  lines: Map<string, number>;
  peakAllocatedBytes?: number;
  device?: string;
}

export interface Decoded {
  config: Config;
  /** Parameters of the link that were skipped: unknown keys, malformed or repeated values. */
  notices: Problem[];
  /** What the engine chose for the user (mode = inference without a method selects membudget). */
  chosen?: Problem[];
}

export class Engine {
  readonly #module: MembudgetModule | PlannerModule;
  #fields: readonly Field[] | undefined;
  #modelPresets: readonly ModelPreset[] | undefined;
  #gpuPresets: readonly GpuPreset[] | undefined;
  #defaults: Config | undefined;
  #planRowColumns: readonly PlanRowColumn[] | undefined;
  #formats: readonly Format[] | undefined;

  constructor(module: MembudgetModule | PlannerModule) {
    this.#module = module;
  }

  // Read on first use: the first ledger needs none of them, and the page paints it before the form.
  get fields(): readonly Field[] {
    return (this.#fields ??= this.#module.fields());
  }

  get modelPresets(): readonly ModelPreset[] {
    return (this.#modelPresets ??= this.#module.modelPresets());
  }

  // The planner's module only.
  get planRowColumns(): readonly PlanRowColumn[] {
    return (this.#planRowColumns ??= this.#planner().planRowColumns());
  }

  get gpuPresets(): readonly GpuPreset[] {
    return (this.#gpuPresets ??= this.#module.gpuPresets());
  }

  /** The formats membudget imports, and those it also writes (`exports`), with what the page calls each. */
  get formats(): readonly Format[] {
    return (this.#formats ??= this.#module.formats());
  }

  defaultConfig(): Config {
    this.#defaults ??= this.#module.defaultConfig();
    return { ...this.#defaults };
  }

  /** The ledger; throws MembudgetError listing every range and consistency error. */
  evaluate(config: Config): Ledger {
    // The ledger is asked for the configuration the page shows, whose field texts and states the page asks for
    // next: all three cross in one call and the other two are kept for this configuration object.
    const view = this.#call(() => this.#module.pageView(this.#complete(config)));
    this.#lastTexts = { config, texts: splitFieldTexts(view.texts) };
    this.#lastStates = { config, states: view.states };
    const result = withStepText(view.result);
    if (result.errors.length > 0) throw new MembudgetError(result.errors);
    return result as Ledger;
  }

  /** Range and consistency errors, as values (for showing each next to its field). */
  validate(config: Config): Problem[] {
    return this.#call(() => this.#module.validate(this.#complete(config)));
  }

  /** Sets one field from text as typed or linked; a preset id also fills the fields it sets. */
  setField(config: Config, key: string, text: string): Config {
    return this.setFieldWithNotices(config, key, text).config;
  }

  /** setField, with what the engine chose for the user (mode = inference selects method membudget). */
  setFieldWithNotices(config: Config, key: string, text: string): Decoded {
    const parsed = this.#call(() => this.#module.setField(this.#complete(config), key, text));
    if (parsed.problems.length > 0) throw new MembudgetError(parsed.problems);
    return { config: parsed.config, notices: [], chosen: parsed.notices };
  }

  fieldTexts(config: Config): Record<keyof Config, string> {
    // Asked once or twice per recompute of the same configuration object (the form, the Hub source): kept.
    if (this.#lastTexts?.config !== config)
      this.#lastTexts = { config, texts: splitFieldTexts(this.#call(() => this.#module.fieldTexts(this.#complete(config)))) };
    return this.#lastTexts.texts;
  }
  #lastTexts: { config: Config; texts: Record<keyof Config, string> } | undefined;

  /** What the field table says of each field in this configuration: hidden when it does not apply, the 0s' values. */
  fieldStates(config: Config): FieldStates {
    // One recompute asks several times (the form, the summary, the planner) of the same configuration object,
    // which the page replaces rather than mutates: the last answer is kept for it.
    if (this.#lastStates?.config !== config)
      this.#lastStates = { config, states: this.#call(() => this.#module.fieldStates(this.#complete(config))) };
    return this.#lastStates.states;
  }
  #lastStates: { config: Config; states: FieldStates } | undefined;

  /** The GPUs the layout occupies, TP × PP × CP × DP, as the engine counts them (membudget/model/layout.hpp). */
  worldSize(config: Config): number {
    return this.fieldStates(config).auto.gpus ?? 0;
  }

  encodeQuery(config: Config): string {
    if (this.#lastQuery?.config !== config)
      this.#lastQuery = { config, query: this.#call(() => this.#module.encodeQuery(this.#complete(config))) };
    return this.#lastQuery.query;
  }
  #lastQuery: { config: Config; query: string } | undefined;

  decodeQuery(query: string): Decoded {
    const parsed = this.#call(() => this.#module.decodeQuery(query));
    return { config: parsed.config, notices: parsed.problems, chosen: parsed.notices };
  }

  /**
   * A query over a configuration (an advice's change, `zero=3&ckpt=full`), read as the link codec reads a link, the
   * keys it leaves out kept from `config`. Unlike a link's, its parameters are the engine's own: one it cannot read
   * is thrown (MembudgetError), not skipped.
   */
  applyQuery(config: Config, query: string): Decoded {
    const parsed = this.#call(() => this.#module.applyQuery(this.#complete(config), query));
    if (parsed.problems.length > 0) throw new MembudgetError(parsed.problems);
    return { config: parsed.config, notices: [], chosen: parsed.notices };
  }

  /** Every method's ledger for the configuration; a method that refuses it carries its errors (planner's module). */
  compare(config: Config): MethodColumn[] {
    const tools = this.#planner();
    return this.#call(() => tools.compare(this.#complete(config)));
  }

  /** One line on a method's convention for a ledger line (planner's module). */
  differenceReason(method: string, lineId: string): string {
    const tools = this.#planner();
    return this.#call(() => tools.differenceReason(method, lineId));
  }

  /**
   * The lines a measurement (tools/measure) compares with: the ledger's, except where membudget's training
   * peak is the optimizer step, whose lines differ from the forward/backward ones a run measures.
   */
  measurableLines(config: Config): Line[] {
    return this.#call(() => this.#module.measurableLines(this.#complete(config)));
  }

  /** The TP sizes the model allows, which the page offers when TP is invalid. */
  validTensorParallel(config: Config): number[] {
    return this.#call(() => this.#module.validTensorParallel(this.#complete(config)));
  }

  /** A Hugging Face config.json onto `config`; throws MembudgetError if it cannot be read. */
  importHfConfig(config: Config, text: string): Decoded {
    // The document's values by path, as the CLI's importHfConfig reads them (flattenJson); the engine's mapping
    // picks what it reads.
    const { rootType, values: fields } = flattenJson(text);
    const tools = this.#planner();
    const imported = this.#call(() => tools.importHfFields(this.#complete(config), rootType, fields));
    if (imported.errors.length > 0) throw new MembudgetError(imported.errors);
    return { config: imported.config, notices: imported.notices, chosen: [] };
  }

  /**
   * A measured file (membudget-measured/1) through the engine's reader, the CLI's compare-measured's: its lines,
   * its peak and its configuration; throws MembudgetError naming the first paths that cannot be read.
   */
  /** The import format a text looks like, or undefined (membudget/formats/import.hpp detectImportFormat). */
  detectImportFormat(text: string): ImportFormat | undefined {
    const format = this.#call(() => this.#planner().detectImportFormat(text));
    return format ? (format as ImportFormat) : undefined;
  }

  /** What to say when no format fits the text (the CLI's words, from the engine). */
  unrecognisedImport(subject: string): string {
    return this.#call(() => this.#planner().unrecognisedImport(subject));
  }

  /** How a text of the format is written: json, toml, yaml or words. */
  importSyntax(format: ImportFormat, text: string): string {
    return this.#call(() => this.#planner().importSyntax(format, text));
  }

  /** A parsed framework configuration mapped by the engine and applied over `config`; throws on a text that cannot be read. */
  importParsed(config: Config, format: ImportFormat, parsed: ParsedImport): ConfigImport {
    const tools = this.#planner();
    const imported = this.#call(() =>
      tools.importConfig(this.#complete(config), format, parsed.rootType, parsed.error, parsed.values, parsed.lines),
    );
    if (imported.errors.length > 0) throw new MembudgetError(imported.errors);
    return imported;
  }

  /** The configuration in a framework's own form, with what the form cannot say. */
  exportConfig(config: Config, format: ImportFormat): ConfigExport {
    return this.#call(() => this.#planner().exportConfig(this.#complete(config), format));
  }

  readMeasuredFile(text: string): MeasuredFileRead {
    const tools = this.#planner();
    const flat = flattenJson(text);
    const file = this.#call(() => tools.readMeasuredFile(flat.rootType, flat.values, flat.error));
    if (file.errors.length > 0) throw new MembudgetError(file.errors);
    return {
      config: file.config,
      configProblems: file.configProblems,
      lines: new Map(file.lines.map((line) => [line.id, line.bytes])),
      peakAllocatedBytes: file.peakAllocatedBytes ?? undefined,
      device: file.deviceName || undefined,
    };
  }

  /** A plan request with the search's defaults (the CLI's `plan` flags) for the configuration. */
  planRequest(config: Config, gpus: number, globalBatch: number): PlanRequest {
    return { ...this.#module.defaultPlanRequest(), base: this.#complete(config), gpus, globalBatch };
  }

  /** One slice of a plan; throws MembudgetError naming the field of a bad request. */
  plan(request: PlanRequest): Plan {
    const planner = this.#planner();
    const raw = this.#call(() => planner.plan({ ...request, base: this.#complete(request.base) }));
    if (raw.errors.length > 0) throw new MembudgetError(raw.errors);
    const { recommendedIndex, recommendedReason, ...rest } = raw;
    return {
      ...rest,
      rows: decodeRows(raw.rows, this.planRowColumns),
      recommended: { index: recommendedIndex, reason: recommendedReason },
    };
  }

  /** The same job on every GPU preset, each with its recommended row (engine/src/plan/which_gpu.cpp). */
  planEachGpu(request: PlanRequest): GpuPlan[] {
    const planner = this.#planner();
    const raw = this.#call(() => planner.planEachGpu({ ...request, base: this.#complete(request.base) }));
    return raw.map(({ rows, recommendedReason, ...rest }) => ({
      ...rest,
      recommended: decodeRows(rows, this.planRowColumns)[0] ?? null,
      reason: recommendedReason,
    }));
  }

  /** Joins slices of a plan: the Pareto front marked, cut to maxRows keeping the fastest row, the recommended row named. */
  finishPlan(rows: readonly PlanRow[], maxRows: number): { rows: PlanRow[]; recommended: Recommendation } {
    const planner = this.#planner();
    const raw = this.#call(() => planner.finishPlan(encodeRows(rows, this.planRowColumns), maxRows));
    return {
      rows: decodeRows(raw.rows, this.planRowColumns),
      recommended: { index: raw.recommendedIndex, reason: raw.recommendedReason },
    };
  }

  /** The configuration a plan row stands for: the base with the row's parallel fields (the CLI's row query). */
  planRowConfig(base: Config, row: PlanRow): Config {
    const planner = this.#planner();
    return this.#call(() => planner.planRowConfig(this.#complete(base), encodeRows([row], this.planRowColumns)));
  }

  /** The serving plan (mode inference; the CLI's `plan --mode inference`); throws MembudgetError naming the field of a bad request. */
  planServing(request: ServingPlanRequest): ServingPlan {
    const planner = this.#planner();
    const plan = this.#call(() => planner.planServing({ ...request, base: this.#complete(request.base) }));
    if (plan.errors.length > 0) throw new MembudgetError(plan.errors);
    return plan;
  }

  /** The serving plan on every GPU preset (`--which-gpu`); a request they all refuse throws, as the CLI exits 2. */
  planServingEachGpu(request: ServingPlanRequest): GpuServingPlan[] {
    const planner = this.#planner();
    const plans = this.#call(() => planner.planServingEachGpu({ ...request, base: this.#complete(request.base) }));
    if (plans[0]?.errors.length) throw new MembudgetError(plans[0].errors);
    return plans;
  }

  // plan(), finishPlan(), advise(), the importers and compare() live in the planner's module (loadPlannerEngine),
  // loaded only when one of them is used.
  #planner(): PlannerModule {
    if (!('plan' in this.#module))
      throw new MembudgetError([
        {
          field: '',
          message: 'the planner, advice, importers and the methods compared run in their own module: load it with loadPlannerEngine()',
        },
      ]);
    return this.#module;
  }

  advise(config: Config): Advice[] {
    const tools = this.#planner();
    return this.#call(() => tools.advise(this.#complete(config)));
  }

  /** The engine's result as a value, errors included (for exports; evaluate() throws instead). */
  result(config: Config): Result {
    return withStepText(this.#call(() => this.#module.evaluate(this.#complete(config))));
  }

  // Embind throws a TypeError for a missing field; fill gaps from the defaults instead. A configuration the engine
  // returned has every field and crosses as it is: two copies of 94 fields on every call were a tenth of a field
  // change's time.
  #complete(config: Partial<Config>): Config {
    this.#defaults ??= this.#module.defaultConfig();
    this.#keys ??= Object.keys(this.#defaults);
    for (const key of this.#keys) if (!(key in config)) return { ...this.#defaults, ...config };
    return config as Config;
  }
  #keys: string[] | undefined;

  #call<T>(fn: () => T): T {
    try {
      return fn();
    } catch (error) {
      if (error instanceof MembudgetError) throw error;
      const message = error instanceof Error ? error.message : String(error);
      throw new MembudgetError([{ field: '', message: `engine call failed: ${message}` }]);
    }
  }
}

/**
 * A JSON document as the engine's readers take it, as the CLI's flattenJson (engine/src/io/json.cpp) writes it:
 * every value with its path ("config.tp", "phases[0].step") in document order, containers with empty text, an
 * array's text its first string element; nothing deeper than 32 levels.
 */
export function flattenJson(text: string): { rootType: string; error: string; values: HfValue[] } {
  let root: unknown;
  try {
    root = parseJsonWithPythonConstants(text);
  } catch (error) {
    return { rootType: 'invalid', error: error instanceof Error ? error.message : String(error), values: [] };
  }
  // The importers' flattener, with the CLI's bounds on what a document flattens to (values and bytes).
  const { rootType, error, values } = flattenDocument(root);
  return { rootType, error, values };
}

let plannerCached: Promise<Engine> | undefined;

/**
 * The planner's engine: the same engine with plan() (membudget-planner.wasm), loaded by the planner's Web
 * Worker when a search starts; the page's own module leaves the planner out to stay small.
 */
export function loadPlannerEngine(wasmBinary?: ArrayBuffer | Uint8Array): Promise<Engine> {
  plannerCached ??= (async () => {
    const { default: create } = await import('./wasm/membudget-planner.js');
    if (wasmBinary) return new Engine(await create({ wasmBinary }));
    const module = await WebAssembly.compileStreaming(fetch(plannerWasmUrl));
    return new Engine(
      await create({
        instantiateWasm(imports, receiveInstance) {
          void WebAssembly.instantiate(module, imports).then((instance) => receiveInstance(instance, module));
          return {};
        },
      }),
    );
  })();
  plannerCached.catch(() => {
    plannerCached = undefined;
  });
  return plannerCached;
}

let cached: Promise<Engine> | undefined;
let failLoad: (error: unknown) => void = () => {};

/** The module's field texts ("key\u001etext" joined by \u001f, wasm/glue.cpp) as an object by key. */
function splitFieldTexts(joined: string): Record<keyof Config, string> {
  const texts: Record<string, string> = {};
  for (const pair of joined.split('\u001f')) {
    const at = pair.indexOf('\u001e');
    texts[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return texts as Record<keyof Config, string>;
}

/**
 * Loads the engine once. In the browser the module's code and its data file (web/src/wasm-data.ts) are fetched next
 * to the page (or from the data: URLs the single-file build inlines); Node callers pass the bytes of both.
 */
export function loadEngine(wasmBinary?: ArrayBuffer | Uint8Array, dataBytes?: ArrayBuffer | Uint8Array): Promise<Engine> {
  cached ??= (async () => {
    // Compile while the bytes arrive (index.html preloads the module and its data alongside the script).
    const compiled = wasmBinary ? WebAssembly.compile(new Uint8Array(wasmBinary)) : WebAssembly.compileStreaming(fetch(wasmUrl));
    const data: Promise<Uint8Array | undefined> = wasmBinary
      ? Promise.resolve(dataBytes && inflateModuleData(new Uint8Array(dataBytes)))
      : fetch(dataUrl).then(async (response) => {
          if (!response.ok) throw new Error(`membudget: the engine data file could not be loaded (HTTP ${response.status})`);
          return inflateModuleData(new Uint8Array(await response.arrayBuffer()));
        });
    const failed = new Promise<never>((_, reject) => {
      failLoad = reject;
    });
    return new Engine(
      await Promise.race([
        failed,
        createMembudget({
          instantiateWasm(imports, receiveInstance) {
            Promise.all([compiled, data])
              .then(([module, bytes]) =>
                WebAssembly.instantiate(module, imports).then((instance) => {
                  writeModuleData(module, instance, bytes);
                  receiveInstance(instance, module);
                }),
              )
              .catch((error: unknown) => failLoad(error));
            return {};
          },
        }),
      ]),
    );
  })();
  cached.catch(() => {
    cached = undefined; // a failed load (offline, blocked) can be retried
  });
  return cached;
}
