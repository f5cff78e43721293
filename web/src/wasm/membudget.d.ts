// Hand-written types of the Embind module registered in wasm/bindings.cpp (Emscripten 3.1.6 has no
// --emit-tsd). tests/wasm/dts.test.ts checks them against the real exports. Only web/src/engine.ts
// imports this module.

// The engine's choices (engine/include/membudget/base/choices.hpp, whose enums have these names and ids; the d.ts
// test checks them against it).
export type Norm = 'rmsnorm' | 'layernorm';
export type QkNorm = 'none' | 'per_head' | 'full_width';
export type ExpertWeights = 'same' | 'mxfp4';
export type Checkpointing = 'none' | 'selective' | 'full' | 'op';
/** A configuration file membudget imports and exports (choices.hpp ImportFormat; docs/import.md). */
export type ImportFormat = 'megatron' | 'torchtitan' | 'torchtune' | 'deepspeed' | 'hf' | 'vllm' | 'sglang';
/** How a file of a format is written (choices.hpp ImportSyntax). */
export type ImportSyntax = 'json' | 'toml' | 'yaml' | 'words';
export type Framework = 'megatron' | 'torchtitan' | 'torchtune' | 'deepspeed' | 'hf_accelerate' | 'vllm' | 'sglang';
export type Fp8Recipe = 'te' | 'torchao';
export type MoeDispatcher = 'alltoall' | 'deepep';
export type Finetune = 'full' | 'lora' | 'qlora';
export type LoraDtype = 'auto' | 'fp32' | 'bf16';
export type OptimizerDtype = 'auto' | 'fp32' | 'bf16';
export type ActFormula = 'table' | 'worked';
export type Attention = 'flash' | 'eager' | 'triton';
export type SplitAccounts = 'none' | 'embedding' | 'loss' | 'both';
export type Optimizer = 'adamw' | 'adamw_8bit' | 'adafactor' | 'sgd' | 'muon';
export type Precision = 'bf16' | 'fp16' | 'fp8' | 'fp32';
export type Offload = 'none' | 'optimizer' | 'all';
export type Mode = 'training' | 'inference';
export type WeightDtype = 'bf16' | 'fp16' | 'fp8' | 'int8' | 'int4';
export type StateDtype = 'fp32' | 'bf16' | 'fp16';
export type KvDtype = 'bf16' | 'fp16' | 'fp8';
export type Method = 'membudget' | 'chapter' | 'korthikanti' | 'megatron' | 'zero' | 'deepspeed';
export type Verdict = 'fits' | 'tight' | 'does_not_fit';
export type StepPhase = 'forward/backward' | 'optimizer step';
export type LineId =
  | 'parameters'
  | 'gradients'
  | 'optimizer'
  | 'activations'
  | 'workspace'
  | 'kv_cache'
  | 'cuda_graphs'
  | 'buffers'
  | 'cuda_context'
  | 'cpu_optimizer'
  | 'cpu_master'
  | 'cpu_gradients'
  | 'cpu_parameters'
  | 'cpu_model_states';

/** One configuration: the engine's field table, with the same snake_case keys as JSON, CLI and URL. */
export interface Config {
  model: string;
  name: string;
  params: number;
  hidden: number;
  layers: number;
  heads: number;
  kv_heads: number;
  head_dim: number;
  ffn: number;
  vocab: number;
  gated_ffn: boolean;
  tied_embeddings: boolean;
  norm: Norm;
  bias: boolean;
  qkv_bias: boolean;
  attention_bias: boolean;
  mlp_bias: boolean;
  output_bias: boolean;
  shared_norm: boolean;
  embedding_norm: boolean;
  vision_params: number;
  qk_norm: QkNorm;
  post_norms: boolean;
  attention_sinks: boolean;
  pos_emb: number;
  context_window: number;
  sliding_window: number;
  full_attention_every: number;
  attention_chunk: number;
  experts: number;
  experts_per_token: number;
  moe_ffn: number;
  shared_expert_ffn: number;
  moe_layer_freq: number;
  capacity_factor: number;
  moe_dispatcher: MoeDispatcher;
  first_dense_layers: number;
  router_bias: boolean;
  shared_expert_gate: boolean;
  mtp_layers: number;
  kv_lora_rank: number;
  q_lora_rank: number;
  qk_rope_dim: number;
  qk_nope_dim: number;
  v_head_dim: number;
  index_heads: number;
  index_head_dim: number;
  linear_value_heads: number;
  linear_key_heads: number;
  linear_key_dim: number;
  linear_value_dim: number;
  linear_conv_kernel: number;
  attn_output_gate: boolean;
  layer_pattern: string;
  mamba_heads: number;
  mamba_head_dim: number;
  mamba_state: number;
  mamba_groups: number;
  mamba_conv_kernel: number;
  mamba_conv_bias: boolean;
  mamba_state_dtype: StateDtype;
  ep: number;
  etp: number;
  vpp: number;
  first_stage_layers: number;
  last_stage_layers: number;
  split_accounts: SplitAccounts;
  attention: Attention;
  dropout: boolean;
  optimizer: Optimizer;
  precision: Precision;
  master_weights: boolean;
  optimizer_dtype: OptimizerDtype;
  optimizer_in_backward: boolean;
  fp8_recipe: Fp8Recipe;
  finetune: Finetune;
  lora_rank: number;
  lora_targets: string;
  lora_dropout: boolean;
  lora_dtype: LoraDtype;
  loss_chunks: number;
  activation_offload: boolean;
  compile: boolean;
  compile_loss: boolean;
  fp8_all_gather: boolean;
  gpus_per_node: number;
  peak_tflops: number;
  fp8_tflops: number;
  matmul_efficiency: number;
  fp8_matmul_efficiency: number;
  tdp_w: number;
  power_limit_w: number;
  hbm_tbps: number;
  nvlink_gbps: number;
  network_gbps: number;
  train_tokens: number;
  gpu_hour_usd: number;
  offload: Offload;
  zero_init: boolean;
  reduce_bucket_size: number;
  sub_group_size: number;
  stage3_prefetch_bucket_size: number;
  stage3_max_live_parameters: number;
  stage3_param_persistence_threshold: number;
  mode: Mode;
  weight_dtype: WeightDtype;
  expert_weight_dtype: ExpertWeights;
  kv_dtype: KvDtype;
  quant_group: number;
  kv_block: number;
  workspace_tokens: number;
  cuda_graphs_gb: number;
  input_tokens: number;
  output_tokens: number;
  enforce_eager: boolean;
  tp: number;
  pp: number;
  dp: number;
  cp: number;
  sp: boolean;
  async_tp: boolean;
  zero: number;
  overlap_grad_reduce: boolean;
  overlap_param_gather: boolean;
  overlap_moe_comm: boolean;
  pipeline_layout: string;
  gpus: number;
  mb: number;
  seq: number;
  ckpt: Checkpointing;
  ckpt_every: number;
  recompute_layers: number;
  microbatches: number;
  static_bytes: number;
  act_formula: ActFormula;
  gpu: string;
  gpu_gb: number;
  buffers_gb: number;
  context_gb: number;
  headroom: number;
  expandable_segments: boolean;
  max_split_size_mb: number;
  autocast: boolean;
  method: Method;
  framework: Framework;
}

export interface Problem {
  /** A key of the field table, or "" for the configuration as a whole. */
  field: string;
  message: string;
}

export interface Line {
  id: LineId;
  label: string;
  formula: string;
  substituted: string;
  bytes: number;
  note: string;
  /** The method whose formula gave the value; "membudget" where a source has none; "allowance". */
  origin: Method | 'allowance';
}

/** One saved activation tensor of the membudget method's sub-ledger. */
export interface Tensor {
  name: string;
  shape: string;
  dtype: string;
  bytesPerCopy: number;
  copies: number;
  bytes: number;
  sharding: string;
}

export interface Phase {
  name: StepPhase;
  totalBytes: number;
}

/** One pipeline stage; lineBytes is aligned with Result.lines. */
export interface Stage {
  index: number;
  layers: number;
  inFlightMicrobatches: number;
  totalBytes: number;
  lineBytes: number[];
  /** Parameters one GPU of the stage holds (its TP/EP shard, before ZeRO; with copies of shared weights). */
  parametersPerGpu: number;
  /** The stage's share of the model's parameters (every shard once, no copies). */
  modelParameters: number;
  /** What the caching allocator reserves at the stage's peak; 0 where the method does not model it. */
  reservedBytes: number;
}

export interface MethodColumn {
  method: Method;
  result: Result;
  /** The bytes the source itself computes (lines whose origin is the method). */
  sourceBytes: number;
}

/** How far membudget's method has been from measured runs like this one (membudget/evaluate/error_band.hpp). */
export interface ErrorBand {
  validated: boolean;
  /** The most under-predicted run like it, (predicted − measured) / measured; 0 when no run gives a band. */
  lowError: number;
  highError: number;
  /** The runs the band comes from (the nearest family's when not validated). */
  runs: number;
  framework: string;
  features: string[];
  text: string;
}

export interface Result {
  method: Method;
  lines: Line[];
  parameterCount: number;
  totalBytes: number;
  capacityBytes: number;
  usableBytes: number;
  /** "" when errors is not empty; "tight" when the error band reaches the headroom line. */
  verdict: Verdict | '';
  errorBand: ErrorBand;
  warnings: Problem[];
  errors: Problem[];
  stages: Stage[];
  peakStage: number;
  tensors: Tensor[];
  phases: Phase[];
  /** "" where the step has one phase (every method but membudget's training ledger). */
  peakPhase: StepPhase | '';
  cpuBytesPerNode: number;
  /** What the caching allocator reserves (torch.cuda.max_memory_reserved) at the peak; 0 where not modelled. */
  reservedBytes: number;
  /** Inference: the most concurrent sequences of length seq that fit, and the longest context at mb sequences. */
  maxSequences: number;
  maxContextTokens: number;
  /** Parameters one token passes through (top-k experts); equal to parameterCount for a dense model. */
  activeParameterCount: number;
  /** Host memory per node, line by line (offload); sums to cpuBytesPerNode. */
  cpuLines: Line[];
  /** Training: the step-time estimate (engine/include/membudget/time/steptime.hpp); null in inference or without a GPU speed. */
  stepTime: StepTime | null;
  servingTime: ServingTime | null;
}

export interface ParsedConfig {
  config: Config;
  problems: Problem[];
  /** What the engine chose for the user (mode = inference selects method membudget). */
  notices: Problem[];
}

/** A key or flag of an imported file that changes memory but could not be mapped, with its value and why. */
export interface Unmapped {
  key: string;
  value: string;
  reason: string;
}

/** A framework's configuration mapped by the engine (membudget/formats/import.hpp) and applied over the base. */
export interface ConfigImport {
  format: ImportFormat;
  /** The base with the assignments applied; the base unchanged when there are errors or problems. */
  config: Config;
  /** membudget's keys the file set, in the field table's order, as field text. */
  assignments: { key: string; text: string }[];
  unmapped: Unmapped[];
  warnings: string[];
  /** The text could not be read as the format. */
  errors: Problem[];
  /** The model kept because the file names none (a DeepSpeed JSON, a vLLM command for the loaded model); "" otherwise. */
  modelKept: string;
  /** What the file maps that the configuration cannot take (importProblems: a value outside its field's range); any refuses the whole import. */
  problems: Problem[];
  /** What the result depends on that the file does not say, each field and why: computed with the field's value. */
  assumed: Problem[];
}

export interface ConfigExport {
  text: string;
  notExported: Unmapped[];
}

/** One top-level value of a config.json: key, JSON type (number, string, boolean, null, array, object), text. */
export interface HfValue {
  key: string;
  type: string;
  text: string;
}

/** A Hugging Face config.json mapped onto a configuration; with errors, config is the base unchanged. */
export interface HfImport {
  config: Config;
  errors: Problem[];
  /** Fields that change memory but are not modelled yet (experts, MLA), each named. */
  notices: Problem[];
}

export interface Field {
  key: keyof Config;
  label: string;
  group: string;
  kind: 'integer' | 'number' | 'boolean' | 'choice' | 'text';
  min: number;
  max: number;
  zeroMeansAuto: boolean;
  autoMeaning: string;
  allowed: number[];
  choices: string[];
  unit: string;
  /** Empty in the page's module, which leaves the text out: web/src/generated/field-text.ts holds it. */
  help: string;
  section: string;
  range: string;
  defaultText: string;
  /** The field's place among the essentials, which the form shows first (1: first); 0: not one. */
  essential: number;
}

export interface FieldStates {
  hidden: (keyof Config)[];
  auto: Partial<Record<keyof Config, number>>;
  /** Labels that differ in this configuration (mb in inference: concurrent sequences). */
  labels: Partial<Record<keyof Config, string>>;
  /** The format this configuration is launched with (membudget/formats/export.hpp launchFormat). */
  launchFormat: ImportFormat;
}

export interface ModelPreset {
  id: string;
  label: string;
  /** The picker's group: Llama, Qwen, DeepSeek, Kimi, Mistral, Gemma, gpt-oss, Phi, OLMo, early open models, the chapter and papers. */
  family: string;
  parameterCount: number;
  // Its source is in docs/presets.md and the CLI's `presets`: the module leaves the text out.
}

export interface GpuPreset {
  id: string;
  label: string;
  capacityBytes: number;
  source: string;
}

/** A format membudget imports (every one) and, where `exports`, also writes (the CLI's import and export). */
export interface Format {
  id: ImportFormat;
  /** What the page calls it: "Megatron-LM flags", "torchtitan TOML", … */
  label: string;
  exports: boolean;
}

/** One column of a plan row (engine/src/plan/plan_row.cpp): the PlanRow key, its kind, a choice's ids by number. */
export interface PlanRowColumn {
  key: string;
  kind: 'number' | 'boolean' | 'choice';
  choices: string[];
}

/** One part of the estimated step, in seconds on the slowest pipeline stage. */
export interface StepTimePart {
  id: string;
  label: string;
  formula: string;
  seconds: number;
}

/** The step-time estimate of a training configuration (docs/planner.md, "Step time"). */
export interface StepTime {
  stepSeconds: number;
  tokensPerSecondPerGpu: number;
  /** (6·N + 12·L·a·d·s) FLOPs per token × tokens/s per GPU ÷ the dense BF16 peak. */
  mfu: number;
  bubbleFraction: number;
  modelFlopsPerToken: number;
  tokensPerStep: number;
  /** The run on train_tokens (0 where it is not set): whole optimizer steps, their seconds, GPU-hours, cost in USD. */
  runSteps: number;
  runSeconds: number;
  runGpuHours: number;
  runCostUsd: number;
  parts: StepTimePart[];
  assumptions: string;
}

/** The serving-speed estimate of an inference configuration (docs/inference.md, "Serving speed"). */
export interface ServingTime {
  inputTokens: number;
  outputTokens: number;
  /** input_tokens and output_tokens not given: seq split in half. */
  lengthsAssumed: boolean;
  concurrency: number;
  ttftSeconds: number;
  tpotSeconds: number;
  requestSeconds: number;
  outputTokensPerSecondPerReplica: number;
  outputTokensPerSecondPerGpu: number;
  requestsPerSecondPerReplica: number;
  gpusPerReplica: number;
  expertsReadPerLayer: number;
  computeBound: boolean;
  cudaGraphs: boolean;
  /** TPOT's parts and TTFT's, in seconds (time/serving.hpp DecodePart, PrefillPart order). */
  decodeParts: StepTimePart[];
  prefillParts: StepTimePart[];
  rooflineTtftSeconds: number;
  rooflineTpotSeconds: number;
  rooflineOutputTokensPerSecondPerGpu: number;
  assumptions: string;
}

/** A search over parallel layouts (the CLI's `plan`; membudget/plan/plan.hpp PlanRequest); the base's parallel fields are what it sets. */
export interface PlanRequest {
  base: Config;
  gpus: number;
  globalBatch: number;
  tpAcrossNodes: boolean;
  unevenPipeline: boolean;
  maxMicroBatch: number;
  maxCp: number;
  includeTight: boolean;
  /** The slice of layouts [layoutBegin, layoutEnd) to search; layoutEnd 0 means all. */
  layoutBegin: number;
  layoutEnd: number;
  maxRows: number;
  /** Ledgers the search may evaluate before it stops as too large (the engine's PlanRequest::maxEvaluations). */
  maxEvaluations: number;
}

/**
 * One slice of a plan as the module returns it: each fitting row is one number per planRowColumns() column,
 * in their order (web/src/engine.ts decodes them).
 */
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

/** One GPU preset's plan of the same job (planEachGpu): its recommended row flat in `rows`, empty where none fits. */
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

/**
 * A plan for serving (the CLI's `plan` in inference; membudget/plan/serving_plan.hpp ServingPlanRequest): every
 * layout of TP × PP (× EP) replicas on `gpus` GPUs and every concurrency that fits, ranked under the targets.
 */
export interface ServingPlanRequest {
  /** Model, GPU, engine, dtypes, input_tokens, output_tokens and seq; its parallel fields are what the plan sets. */
  base: Config;
  gpus: number;
  /** 0: no target (the CLI's --ttft-ms and --tpot-ms, in seconds). */
  ttftLimitSeconds: number;
  tpotLimitSeconds: number;
  /** The most requests one replica runs at once (vLLM's max_num_seqs, SGLang's max_running_requests). */
  maxConcurrency: number;
  tpAcrossNodes: boolean;
}

/** One (layout, concurrency) of a serving plan (the CLI's `plan --mode inference --json` row). */
export interface ServingPlanRow {
  tp: number;
  pp: number;
  /** Replicas. */
  dp: number;
  ep: number;
  /** Requests per replica. */
  concurrency: number;
  /** The most requests of seq tokens that fit per replica (capped at the request's maxConcurrency). */
  maxConcurrency: number;
  peakBytes: number;
  usableBytes: number;
  ttftSeconds: number;
  tpotSeconds: number;
  outputTokensPerSecondPerGpu: number;
  /** The whole deployment's: × replicas. */
  outputTokensPerSecond: number;
  meetsTargets: boolean;
  /** The link query of the configuration the row stands for. */
  query: string;
}

/** A serving plan: every fitting row, those meeting the targets first, fastest per GPU first. */
export interface ServingPlan {
  rows: ServingPlanRow[];
  /** Index into rows; -1 when nothing fits. */
  recommended: number;
  reason: string;
  layouts: number;
  evaluated: number;
  errors: Problem[];
}

/** One GPU preset's serving plan of the same workload (planServingEachGpu): its recommended row, or null. */
export interface GpuServingPlan {
  gpu: string;
  label: string;
  recommended: ServingPlanRow | null;
  reason: string;
  errors: Problem[];
}

/** A measured file (membudget-measured/1) as the engine's reader reads it (the CLI's compare-measured). */
export interface MeasuredFile {
  config: Config;
  /** Problems of its configuration, each named config.<key>. */
  configProblems: Problem[];
  lineIds: string[];
  lineBytes: number[];
  /** -1 when the file has no peak.allocated_bytes. */
  peakAllocatedBytes: number;
  deviceName: string;
  /** What cannot be read, each named by its path (format, lines.gradients, peak.allocated_bytes). */
  errors: Problem[];
}

/** One change that lowers the peak (the CLI's `advise`). */
export interface Advice {
  change: string;
  query: string;
  savedBytes: number;
  totalBytes: number;
  verdict: Verdict;
  cost: string;
  /** Estimated step time after ÷ before − 1 (0.12: 12% slower); 0 when either has no estimate. */
  stepTimeChange: number;
  /** False for LoRA or QLoRA instead of training every weight: offered after the changes that keep the task. */
  keepsTask: boolean;
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
