// Hand-written types of membudget-planner.js: the page's module plus the planner, the advice, the config
// importers and the methods compared, registered by the same wasm/bindings.cpp with MEMBUDGET_WASM_PLANNER and
// loaded only when one of them is used (the planner's Web Worker, "What to change", an import, "Compare methods").
import type {
  Advice,
  Config,
  HfImport,
  HfValue,
  MeasuredFile,
  MembudgetModule,
  MethodColumn,
  ConfigExport,
  ConfigImport,
  ModuleOptions,
  PlanRequest,
  PlanRowColumn,
  RawGpuPlan,
  RawPlan,
  GpuServingPlan,
  ServingPlan,
  ServingPlanRequest,
} from './membudget.js';

export interface PlannerModule extends MembudgetModule {
  /** Every method's ledger for the configuration (the CLI's `compare`). */
  compare(config: Config): MethodColumn[];
  /** One line on a method's convention for a ledger line. */
  differenceReason(method: string, lineId: string): string;
  /** The import format a text looks like (megatron, torchtitan, torchtune, deepspeed, hf, vllm, sglang), or "" if none. */
  detectImportFormat(text: string): string;
  /** What to say when no format fits `subject` (the CLI's words). */
  unrecognisedImport(subject: string): string;
  /** How a text of the format is written: json, toml, yaml or words (a script or command). */
  importSyntax(format: string, text: string): string;
  /** The parsed text (values by path, or each line's words) mapped to membudget's keys and applied over `base`. */
  importConfig(base: Config, format: string, rootType: string, error: string, values: HfValue[], lines: string[][]): ConfigImport;
  /** The configuration in a framework's own form (megatron, torchtitan, torchtune, deepspeed, vllm, sglang). */
  exportConfig(config: Config, format: string): ConfigExport;
  /**
   * Fills the architecture fields of `base` from a Hugging Face config.json's top-level values (the CLI's
   * --hf-config); rootType is "object", another JSON type name, or "invalid" when the text did not parse.
   */
  importHfFields(base: Config, rootType: string, fields: HfValue[]): HfImport;
  /** The smallest changes that make a configuration fit, best first. */
  advise(config: Config): Advice[];
  /** A measured file's values (path, type, text; containers too) through the engine's reader. */
  readMeasuredFile(rootType: string, values: HfValue[], invalidReason: string): MeasuredFile;
  /** The fitting layouts of layouts [layoutBegin, layoutEnd) (0: to the end); Pareto marked only for a whole plan. */
  plan(request: PlanRequest): RawPlan;
  /**
   * Joins a plan's slices (flat rows, as RawPlan.rows): the Pareto front marked and first, cut to maxRows with the
   * fastest row kept, and the recommended row's index (-1: none) and why.
   */
  finishPlan(rows: Float64Array, maxRows: number): { rows: Float64Array; recommendedIndex: number; recommendedReason: string };
  /** The same job on every GPU preset: each one's counts and its recommended row (rows empty where nothing fits). */
  planEachGpu(request: PlanRequest): RawGpuPlan[];
  /** The columns of a plan row, in the order of RawPlan.rows. */
  planRowColumns(): PlanRowColumn[];
  /** The configuration one plan row (its numbers, as RawPlan.rows) stands for: the base with its parallel fields. */
  planRowConfig(base: Config, row: Float64Array): Config;
  /** The serving plan (mode inference): every fitting layout and concurrency, the recommended row first; errors name the field. */
  planServing(request: ServingPlanRequest): ServingPlan;
  /** The same workload on every GPU preset, each with its recommended serving row (null where nothing fits). */
  planServingEachGpu(request: ServingPlanRequest): GpuServingPlan[];
}

declare function createMembudgetPlanner(options?: ModuleOptions): Promise<PlannerModule>;
export default createMembudgetPlanner;
