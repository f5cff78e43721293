// mode=inference in the wasm build: vLLM's KV-cache bytes, and the same answers as the CLI.
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadEngine, type Engine } from '../../web/src/engine';
import { cliResultForQuery } from '../support/cli';
import { fixture, WASM, WASM_DATA } from '../support/paths';

let engine: Engine;
beforeAll(async () => {
  engine = await loadEngine(readFileSync(WASM), readFileSync(WASM_DATA));
});

describe('inference', () => {
  it('the KV cache equals vLLM’s for every fixture case', () => {
    const cases = fixture('vllm-kv').cases;
    expect(cases.length).toBeGreaterThanOrEqual(10);
    for (const k of cases) {
      const ledger = engine.evaluate({
        ...engine.defaultConfig(),
        model: 'custom',
        method: 'membudget',
        mode: 'inference',
        framework: 'vllm',
        params: 0,
        layers: k.num_layers,
        kv_heads: k.total_num_kv_heads,
        heads: Math.max(k.total_num_kv_heads, 32),
        head_dim: k.head_size,
        hidden: 4096,
        tp: k.tensor_parallel_size,
        pp: 1,
        dp: 1,
        kv_dtype: k.kv_dtype_bytes === 1 ? 'fp8' : 'bf16',
        kv_block: k.block_size,
        ...(k.mla
          ? {
              kv_lora_rank: k.mla.kv_lora_rank,
              qk_rope_dim: k.mla.qk_rope_head_dim,
              heads: 128,
              kv_heads: 128,
              head_dim: 128,
              hidden: 7168,
            }
          : {}),
        mb: k.seq_lens.length,
        seq: k.seq_lens[0],
      });
      expect(ledger.lines.find((l) => l.id === 'kv_cache')!.bytes, `${k.model} TP ${k.tensor_parallel_size}`).toBe(k.kv_bytes_per_gpu);
    }
  });

  it('runs a serving benchmark as the CLI does: the same draws, means, P99s and throughput', () => {
    const query =
      'model=deepseek-v3&mode=inference&framework=sglang&gpu=b200&tp=8&mb=64&seq=2048&input_tokens=1024&output_tokens=1024' +
      '&weight_dtype=fp8&num_prompts=640&length_range_ratio=0.8';
    const sv = engine.evaluate(engine.decodeQuery(query).config).servingTime!;
    const native = cliResultForQuery(query);
    expect(sv.benchmark).not.toBeNull();
    expect(sv.benchmark!.prompts).toBe(640);
    expect(sv.ttftSeconds).toBeCloseTo(native.ttft_s, 6);
    expect(sv.tpotSeconds).toBeCloseTo(native.tpot_s, 6);
    expect(sv.outputTokensPerSecondPerGpu).toBeCloseTo(native.output_tokens_per_second_per_gpu, 3);
    expect(sv.benchmark!.ttftP99Seconds).toBeCloseTo(native.serving.benchmark.ttft_p99_s, 6);
    expect(sv.benchmark!.meanInputTokens).toBeCloseTo(native.serving.benchmark.mean_input_tokens, 3);
    // The first wave queues: its slowest request waits for many prefills, the mean far less.
    expect(sv.benchmark!.ttftP99Seconds).toBeGreaterThan(3 * sv.ttftSeconds);
    // Without num_prompts: the steady state, and no benchmark record.
    const steady = engine.evaluate(engine.decodeQuery(query.replace('&num_prompts=640', '')).config).servingTime!;
    expect(steady.benchmark).toBeNull();
  });

  it('answers how many sequences and how long a context fit, as the CLI does', () => {
    const query = 'model=llama-3.1-70b&tp=4&mb=16&seq=8192&gpu=h100-80gb&mode=inference&weight_dtype=fp8&kv_dtype=fp8';
    const ledger = engine.evaluate(engine.decodeQuery(query).config);
    const native = cliResultForQuery(query);
    expect(ledger.maxSequences).toBe(native.max_sequences);
    expect(ledger.maxContextTokens).toBe(native.max_context_tokens);
    expect(ledger.maxSequences).toBeGreaterThan(16);
    expect(ledger.lines.map((l) => l.id)).toEqual(['parameters', 'kv_cache', 'activations', 'cuda_graphs', 'buffers', 'cuda_context']);
  });
});

describe('every parameter is somewhere', () => {
  it('summed over stages, each preset’s weights are its parameter count, in training and in inference (MoE included)', () => {
    let checked = 0;
    for (const preset of engine.modelPresets) {
      for (const mode of ['training', 'inference'] as const) {
        for (const [tp, pp] of [
          [1, 1],
          [2, 2],
          [8, 3],
        ]) {
          const config = {
            ...engine.decodeQuery(`model=${preset.id}`).config,
            mode,
            method: 'membudget' as const,
            // Weights at two bytes each: the identity below is BF16's (DeepSeek-V3's checkpoint is FP8, gpt-oss's
            // experts MXFP4; their formats have tests of their own).
            weight_dtype: 'bf16' as const,
            expert_weight_dtype: 'same' as const,
            params: 0,
            tp,
            pp,
            dp: 8,
            zero: 0,
          };
          if (engine.validate(config).length > 0) continue;
          const ledger = engine.evaluate(config);
          const model = ledger.stages.reduce((sum, s) => sum + s.modelParameters, 0);
          expect(Math.abs(model - ledger.parameterCount) / ledger.parameterCount, `${preset.id} ${mode} TP ${tp} PP ${pp}`).toBeLessThan(
            1e-12,
          );
          for (const stage of ledger.stages) {
            const weights = stage.lineBytes[ledger.lines.findIndex((l) => l.id === 'parameters')];
            expect(weights).toBeCloseTo(2 * stage.parametersPerGpu, -1);
          }
          checked += 1;
        }
      }
    }
    expect(checked).toBeGreaterThan(40);
  });
});
