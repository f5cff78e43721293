// The Embind module registered in wasm/bindings.cpp: its functions, and the envelopes of a training plan's flat rows
// (Emscripten 3.1.6 has no --emit-tsd). Every record they take or return is typed in web/src/generated/records.ts,
// written from the engine's record tables. tests/wasm/dts.test.ts checks both against the real exports. Only
// web/src/engine.ts imports this module.
import type { Config, Field, FieldStates, Format, GpuPreset, Line, ModelPreset, ParsedConfig, Problem, Result } from '../generated/records';

export type * from '../generated/records';

export interface PlanRowColumn {
  key: string;
  kind: 'number' | 'boolean' | 'choice';
  choices: string[];
}

export interface RawPlan {
  rows: Float64Array;
  layouts: number;
  candidates: number;
  evaluated: number;
  pruned: number;
  fitting: number;
  dropped: number;
  /** A whole plan's fastest fitting row (-1 for a slice, or when none fits) and why. */
  recommendedIndex: number;
  recommendedReason: string;
  errors: Problem[];
}

export interface RawGpuPlan {
  gpu: string;
  label: string;
  capacityBytes: number;
  fitting: number;
  evaluated: number;
  rows: Float64Array;
  recommendedReason: string;
  errors: Problem[];
}

export interface MembudgetModule {
  evaluate(config: Config): Result;
  /** evaluate, fieldTexts and fieldStates of one configuration in one call (wasm/glue.cpp pageView). */
  pageView(config: Config): { result: Result; texts: string; states: FieldStates };
  validate(config: Config): Problem[];
  defaultConfig(): Config;
  setField(config: Config, key: string, text: string): ParsedConfig;
  /** Every field's text as "key\u001etext", joined by \u001f (wasm/glue.cpp fieldTexts). */
  fieldTexts(config: Config): string;
  fields(): Field[];
  /** The fields that do not apply to the configuration (the field table's applies), and what each 0 that means
   * auto stands for in it. */
  fieldStates(config: Config): FieldStates;
  modelPresets(): ModelPreset[];
  gpuPresets(): GpuPreset[];
  encodeQuery(config: Config): string;
  decodeQuery(query: string): ParsedConfig;
  /** A query over a configuration (an advice's change): decodeQuery's reading, the keys it leaves out kept from
   * `base` (membudget/model/query.hpp applyQuery). */
  applyQuery(base: Config, query: string): ParsedConfig;
  /** The peak stage's lines during forward and backward, where a measurement records them; empty on errors. */
  measurableLines(config: Config): Line[];
  /** The TP sizes the model's heads allow (dividing the heads, and dividing or a multiple of the KV heads). */
  validTensorParallel(config: Config): number[];
  /** The formats, in the engine's order (choices.hpp ImportFormat). */
  formats(): Format[];
  /** The search's defaults (the engine's PlanRequest, which the CLI's `plan` flags start from). */
  defaultPlanRequest(): PlanRequest;
}

export interface ModuleOptions {
  wasmBinary?: ArrayBuffer | Uint8Array;
  /** Instantiates the module itself (for streaming compilation); returns {} and calls receiveInstance. */
  instantiateWasm?: (
    imports: WebAssembly.Imports,
    receiveInstance: (instance: WebAssembly.Instance, module: WebAssembly.Module) => void,
  ) => object;
  locateFile?: (path: string, prefix: string) => string;
  print?: (text: string) => void;
  printErr?: (text: string) => void;
}

declare function createMembudget(options?: ModuleOptions): Promise<MembudgetModule>;
export default createMembudget;
