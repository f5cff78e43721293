// The planner and the advice in the wasm build, through the typed layer the page uses: the same rows,
// counts, Pareto front and advice as the native CLI; slices joined as the worker joins them.
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadEngine, loadPlannerEngine, MembudgetError, type Engine } from '../../web/src/engine';
import { runPlan } from '../../web/src/plan-run';
import { runCli } from '../support/cli';
import { PLANNER_WASM, WASM, WASM_DATA } from '../support/paths';

let engine: Engine;
let page: Engine;
beforeAll(async () => {
  engine = await loadPlannerEngine(readFileSync(PLANNER_WASM));
  page = await loadEngine(readFileSync(WASM), readFileSync(WASM_DATA));
});

const QUERY = 'model=llama-3.1-70b&gpu=h100-80gb&tp=8&dp=8&microbatches=32&seq=8192&train_tokens=15000000000000&gpu_hour_usd=2.5';

interface CliRow {
  query: string;
  tp: number;
  pp: number;
  dp: number;
  cp: number;
  ep: number;
  zero: number;
  sp: boolean;
  ckpt: string;
  mb: number;
  microbatches: number;
  first_stage_layers: number;
  last_stage_layers: number;
  peak_bytes: number;
  headroom_bytes: number;
  peak_stage: number;
  verdict: string;
  recompute_overhead: number;
  bubble: number;
  tp_crosses_node: boolean;
  cp_crosses_node: boolean;
  pareto: boolean;
  step_time_s: number;
  tokens_per_second_per_gpu: number;
  mfu: number;
  tokens_per_second_per_gpu_low: number;
  tokens_per_second_per_gpu_high: number;
  as_fast: boolean;
  run_days: number;
  gpu_hours: number;
  cost_usd: number;
}

describe('the planner in the wasm build', () => {
  it('gives the CLI’s rows, field for field, and its counts', async () => {
    const config = engine.decodeQuery(QUERY).config;
    const cli = JSON.parse(runCli(['plan', '--json', '--url', QUERY]).stdout) as {
      layouts: number;
      candidates: number;
      evaluated: number;
      pruned: number;
      fitting: number;
      rows: CliRow[];
    };
    const whole = engine.plan(engine.planRequest(config, 64, 256));
    expect([whole.layouts, whole.candidates, whole.evaluated, whole.pruned, whole.fitting]).toEqual([
      cli.layouts,
      cli.candidates,
      cli.evaluated,
      cli.pruned,
      cli.fitting,
    ]);
    expect(whole.rows.length).toBe(cli.rows.length);
    whole.rows.forEach((r, i) => {
      const c = cli.rows[i];
      expect(r).toEqual({
        tp: c.tp,
        pp: c.pp,
        dp: c.dp,
        cp: c.cp,
        ep: c.ep,
        zero: c.zero,
        sp: c.sp,
        ckpt: c.ckpt,
        mb: c.mb,
        microbatches: c.microbatches,
        firstStageLayers: c.first_stage_layers,
        lastStageLayers: c.last_stage_layers,
        peakBytes: c.peak_bytes,
        headroomBytes: c.headroom_bytes,
        peakStage: c.peak_stage,
        verdict: c.verdict,
        recomputeOverhead: c.recompute_overhead,
        bubble: c.bubble,
        tpCrossesNode: c.tp_crosses_node,
        cpCrossesNode: c.cp_crosses_node,
        pareto: c.pareto,
        stepTimeSeconds: c.step_time_s,
        tokensPerSecondPerGpu: c.tokens_per_second_per_gpu,
        mfu: c.mfu,
        tokensPerSecondPerGpuLow: c.tokens_per_second_per_gpu_low,
        tokensPerSecondPerGpuHigh: c.tokens_per_second_per_gpu_high,
        asFast: c.as_fast,
        runDays: c.run_days,
        runGpuHours: c.gpu_hours,
        runCostUsd: c.cost_usd,
      });
      // Every row with a step time has the run on 15T tokens: days and GPU-hours of whole steps on 64 GPUs, at $2.50.
      if (r.stepTimeSeconds > 0) {
        expect(r.runDays).toBeGreaterThan(0);
        expect(r.runGpuHours).toBeCloseTo(64 * r.runDays * 24, 3);
        expect(r.runCostUsd).toBeCloseTo(2.5 * r.runGpuHours, 3);
      }
      // The configuration a row stands for is the one its CLI query links to.
      if (i < 50) expect(engine.planRowConfig(config, r)).toEqual(engine.decodeQuery(c.query).config);
    });
    // The worker's way: slices, then the Pareto front over the joined rows; the same plan.
    const progress: number[] = [];
    const sliced = await runPlan(engine, engine.planRequest(config, 64, 256), (p) => progress.push(p.layoutsDone / p.layouts));
    expect(sliced.rows).toEqual(whole.rows);
    // The recommended row: the CLI's, and the fastest of those that fit.
    const cliRecommended = (
      JSON.parse(runCli(['plan', '--json', '--url', QUERY]).stdout) as { recommended: { index: number; reason: string } }
    ).recommended;
    expect(sliced.recommended).toEqual(cliRecommended);
    const fitting = sliced.rows.filter((r) => r.verdict === 'fits');
    expect(sliced.rows[sliced.recommended.index].stepTimeSeconds).toBe(Math.min(...fitting.map((r) => r.stepTimeSeconds)));
    expect(sliced.evaluated).toBe(whole.evaluated);
    expect(progress.at(-1)).toBe(1);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
  });

  it('caps the rows as the CLI does and reports what it dropped, whole or in slices', async () => {
    const config = engine.decodeQuery(QUERY).config;
    for (const maxRows of [7, 40]) {
      const request = { ...engine.planRequest(config, 64, 256), maxRows };
      const whole = engine.plan(request);
      const sliced = await runPlan(engine, request, () => {});
      expect(whole.rows.length).toBe(maxRows);
      expect(whole.dropped).toBe(whole.fitting - maxRows);
      expect(sliced.rows).toEqual(whole.rows);
      expect(sliced.dropped).toBe(whole.dropped);
      const cli = JSON.parse(runCli(['plan', '--json', '--url', QUERY]).stdout) as { rows: unknown[] };
      expect(cli.rows.length).toBeGreaterThan(maxRows);
    }
  });

  it('lives in the planner’s module only, with the advice and the importer: the page’s engine refuses them with a message', () => {
    expect(() => page.plan(page.planRequest(page.defaultConfig(), 8, 8))).toThrowError(/loadPlannerEngine/);
    const config = page.decodeQuery('model=llama-3.1-70b&tp=1&dp=8&ckpt=none').config;
    expect(() => page.advise(config)).toThrowError(/loadPlannerEngine/);
    expect(() => page.importHfConfig(config, '{}')).toThrowError(/loadPlannerEngine/);
    expect(engine.advise(config).length).toBeGreaterThan(0);
  });

  it('names the field of a bad request', () => {
    const config = engine.defaultConfig();
    expect(() => engine.plan(engine.planRequest(config, 0, 8))).toThrowError(MembudgetError);
    try {
      engine.plan(engine.planRequest(config, 8, 0.5));
    } catch (error) {
      expect((error as MembudgetError).problems[0].field).toBe('global_batch');
    }
  });

  it('advises what the CLI advises', () => {
    const query = 'model=llama-3.1-70b&gpu=h100-80gb&tp=4&dp=16&mb=2&ckpt=none&microbatches=8';
    const cli = JSON.parse(runCli(['advise', '--json', '--url', query]).stdout) as {
      change: string;
      query: string;
      total_bytes: number;
      saved_bytes: number;
      verdict: string;
      cost: string;
      step_time_change: number;
      keeps_task: boolean;
    }[];
    const advice = engine.advise(engine.decodeQuery(query).config);
    expect(advice).toEqual(
      cli.map((a) => ({
        change: a.change,
        query: a.query,
        totalBytes: a.total_bytes,
        savedBytes: a.saved_bytes,
        verdict: a.verdict,
        cost: a.cost,
        stepTimeChange: a.step_time_change,
        keepsTask: a.keeps_task,
      })),
    );
    expect(advice[0].verdict).toBe('fits');
    // Each change says what it costs in estimated step time.
    for (const a of advice) expect(a.cost).toMatch(/^estimated step time [+−]\d/);
  });

  it('applies a change as the engine evaluated it: its query over the configuration, through the link codec', () => {
    for (const query of [
      'model=llama-3.1-70b&gpu=h100-80gb&tp=4&dp=16&mb=2&ckpt=none&microbatches=8',
      'model=mixtral-8x7b&gpu=h100-80gb&method=membudget&framework=torchtitan&tp=1&dp=8&zero=3&mb=4&ckpt=none',
      'model=llama-3.1-70b&gpu=a100-40gb&gpus=64&tp=2&mb=2&ckpt=none&seq=8192',
    ]) {
      const config = engine.decodeQuery(query).config;
      const advice = engine.advise(config);
      expect(advice.length, query).toBeGreaterThan(0);
      for (const a of advice) {
        const applied = page.applyQuery(config, a.query);
        expect(engine.evaluate(applied.config).totalBytes, `${query}: ${a.query}`).toBe(a.totalBytes);
        expect(engine.applyQuery(config, a.query)).toEqual(applied);
      }
    }
  });

  it('reads a change as a link is read, and throws what it cannot read instead of skipping it', () => {
    const config = page.decodeQuery('model=llama-3.1-70b&gpu=h100-80gb&tp=4&dp=16').config;
    // Percent-decoded, the model preset first whatever the order, every key the query leaves out the base's.
    const applied = page.applyQuery(config, 'name=My%20model&hidden=1024&model=llama-3.1-8b');
    expect(applied.config).toEqual({
      ...page.decodeQuery('model=llama-3.1-8b&gpu=h100-80gb&tp=4&dp=16&hidden=1024').config,
      name: 'My model',
    });
    // What the engine chooses for the user comes back to be said, as setField's does.
    expect(page.applyQuery(config, 'mode=inference').chosen!.map((n) => n.field)).toContain('framework');
    expect(() => page.applyQuery(config, 'tp=2&bogus=1')).toThrowError(MembudgetError);
    try {
      page.applyQuery(config, 'tp=2&bogus=1');
    } catch (error) {
      expect((error as MembudgetError).problems.map((p) => p.field)).toEqual(['bogus']);
    }
  });
});
