// The CLI's `membudget eval` JSON (engine/src/io/json.cpp, resultToJson), built from the engine's result so that
// the wasm carries no JSON serializer (it cost 10 KB gzipped). The browser test checks that a download is
// byte-identical to the CLI's output for the same configuration.
import type { Config, Engine, Line, Problem, Result } from './engine';

const problems = (list: Problem[]) => list.map((p) => ({ field: p.field, message: p.message }));
const lines = (list: Line[]) =>
  list.map((l) => ({
    id: l.id,
    label: l.label,
    formula: l.formula,
    substituted: l.substituted,
    bytes: l.bytes,
    note: l.note,
    origin: l.origin,
  }));

function configObject(engine: Engine, config: Config): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of engine.fields) out[field.key] = config[field.key];
  return out;
}

// Rounded as json.cpp rounds them (std::round halves away from zero; these are never negative), divided by the
// exact number of units per one.
const rounded = (value: number, perOne: number) => Math.round(value * perOne) / perOne;

function runJson(st: NonNullable<Result['stepTime']>, config: Config): Record<string, unknown> | null {
  if (!(st.runSteps > 0)) return null;
  return {
    train_tokens: config.train_tokens,
    optimizer_steps: st.runSteps,
    wall_clock_days: rounded(st.runSeconds / 86400, 1e6),
    gpu_hours: rounded(st.runGpuHours, 1e3),
    cost_usd: config.gpu_hour_usd > 0 ? rounded(st.runCostUsd, 1e2) : null,
  };
}

function stepTimeJson(result: Result, config: Config): Record<string, unknown> {
  const st = result.stepTime;
  if (st === null) return { step_time_s: null, tokens_per_second_per_gpu: null, mfu: null, run: null };
  return {
    step_time_s: rounded(st.stepSeconds, 1e6),
    tokens_per_second_per_gpu: rounded(st.tokensPerSecondPerGpu, 1e3),
    mfu: rounded(st.mfu, 1e6),
    step_time: {
      parts_ms: Object.fromEntries(st.parts.map((p) => [p.id, rounded(p.seconds * 1e3, 1e3)])),
      bubble_fraction: rounded(st.bubbleFraction, 1e6),
      model_flops_per_token: st.modelFlopsPerToken,
      tokens_per_step: st.tokensPerStep,
      assumptions: st.assumptions,
    },
    run: runJson(st, config),
  };
}

function servingJson(result: Result, config: Config): Record<string, unknown> {
  const sv = result.servingTime;
  if (sv === null) return { ttft_s: null, tpot_s: null, output_tokens_per_second_per_gpu: null, serving: null };
  const parts = (list: { id: string; seconds: number }[]) => Object.fromEntries(list.map((p) => [p.id, rounded(p.seconds * 1e3, 1e3)]));
  return {
    ttft_s: rounded(sv.ttftSeconds, 1e6),
    tpot_s: rounded(sv.tpotSeconds, 1e6),
    output_tokens_per_second_per_gpu: rounded(sv.outputTokensPerSecondPerGpu, 1e3),
    serving: {
      framework: config.framework,
      input_tokens: sv.inputTokens,
      output_tokens: sv.outputTokens,
      lengths_assumed: sv.lengthsAssumed,
      concurrency: sv.concurrency,
      gpus_per_replica: sv.gpusPerReplica,
      replicas: config.dp,
      output_tokens_per_second_per_replica: rounded(sv.outputTokensPerSecondPerReplica, 1e3),
      output_tokens_per_second: rounded(sv.outputTokensPerSecondPerReplica * config.dp, 1e3),
      requests_per_second_per_replica: rounded(sv.requestsPerSecondPerReplica, 1e6),
      request_latency_s: rounded(sv.requestSeconds, 1e6),
      tpot_parts_ms: parts(sv.decodeParts),
      ttft_parts_ms: parts(sv.prefillParts),
      experts_read_per_layer: rounded(sv.expertsReadPerLayer, 1e3),
      compute_bound: sv.computeBound,
      cuda_graphs: sv.cudaGraphs,
      roofline: {
        ttft_s: rounded(sv.rooflineTtftSeconds, 1e6),
        tpot_s: rounded(sv.rooflineTpotSeconds, 1e6),
        output_tokens_per_second_per_gpu: rounded(sv.rooflineOutputTokensPerSecondPerGpu, 1e3),
      },
      assumptions: sv.assumptions,
    },
  };
}

export function resultJson(engine: Engine, config: Config): string {
  const result: Result = engine.result(config);
  if (result.errors.length > 0) {
    return JSON.stringify({ method: result.method, errors: problems(result.errors), config: configObject(engine, config) }, null, 2);
  }
  const out: Record<string, unknown> = {
    method: result.method,
    parameter_count: result.parameterCount,
    active_parameter_count: result.activeParameterCount,
    lines: lines(result.lines),
    total_bytes: result.totalBytes,
    reserved_bytes: result.reservedBytes > 0 ? result.reservedBytes : null,
    capacity_bytes: result.capacityBytes,
    usable_bytes: result.usableBytes,
    verdict: result.verdict,
    error_band: {
      validated: result.errorBand.validated,
      ...(result.errorBand.runs > 0 ? { low: result.errorBand.lowError, high: result.errorBand.highError } : {}),
      runs: result.errorBand.runs,
      framework: result.errorBand.framework,
      features: result.errorBand.features,
      text: result.errorBand.text,
    },
    peak_stage: result.peakStage,
    ...(config.mode === 'training' ? stepTimeJson(result, config) : servingJson(result, config)),
    stages: result.stages.map((s) => ({
      stage: s.index,
      layers: s.layers,
      in_flight_microbatches: s.inFlightMicrobatches,
      total_bytes: s.totalBytes,
      reserved_bytes: s.reservedBytes > 0 ? s.reservedBytes : null,
      parameters_per_gpu: s.parametersPerGpu,
      model_parameters: s.modelParameters,
      lines: Object.fromEntries(result.lines.map((l, i) => [l.id, s.lineBytes[i]])),
    })),
    phases: result.phases.map((p) => ({ name: p.name, total_bytes: p.totalBytes })),
    peak_phase: result.peakPhase,
    tensors: result.tensors.map((t) => ({
      name: t.name,
      shape: t.shape,
      dtype: t.dtype,
      bytes_per_copy: t.bytesPerCopy,
      copies: t.copies,
      bytes: t.bytes,
      sharding: t.sharding,
    })),
    cpu_bytes_per_node: result.cpuBytesPerNode,
    cpu_lines: lines(result.cpuLines),
  };
  if (config.mode === 'inference') {
    out.max_sequences = result.maxSequences;
    out.max_context_tokens = result.maxContextTokens;
  }
  out.warnings = problems(result.warnings);
  out.errors = problems(result.errors);
  out.query = engine.encodeQuery(config);
  out.config = configObject(engine, config);
  return JSON.stringify(out, null, 2);
}
