#!/usr/bin/env node
// docs/presets.md's tables of model and GPU presets, generated from the engine's presets (`membudget presets`), so
// that no preset is missing and no capacity or source is restated by hand. `--write` writes them between the
// markers; `--check` (a ctest) fails when they are stale.
//
//   node scripts/preset-table.mjs --write build/membudget
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { generatorArgs, root, withBlock, writeOrCheck } from './generated-files.mjs';

const { write, cli } = generatorArgs('preset-table.mjs');

/** @typedef {{ id: string; label: string; family: string; parameter_count: number; context_window: number; weight_dtype: string; expert_weight_dtype: string; source: string }} ModelPreset */
/** @typedef {{ id: string; label: string; capacity_bytes: number; source: string; peak_tflops: number; fp8_tflops: number; hbm_tbps: number }} GpuPreset */
/** @type {{ models: ModelPreset[]; gpus: GpuPreset[] }} */
const presets = JSON.parse(execFileSync(cli, ['presets'], { encoding: 'utf8' }));
/** @param {string} text */
const cell = (text) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
/** @param {number} value */
const grouped = (value) => value.toLocaleString('en-US', { maximumFractionDigits: 3 });
const MiB = 2 ** 20;
/** A capacity as the device reports it: whole MiB (nvidia-smi), else bytes. @param {number} bytes */
const capacity = (bytes) => (bytes % MiB === 0 ? `${grouped(bytes / MiB)} MiB` : `${grouped(bytes)} B`);

/** The checkpoint's weight format as vLLM loads it (weight_dtype, expert_weight_dtype). @param {ModelPreset} m */
const weights = (m) => `${m.weight_dtype.toUpperCase()}${m.expert_weight_dtype === 'mxfp4' ? ', experts MXFP4' : ''}`;

const block = [
  '<!-- preset-table:begin (node scripts/preset-table.mjs --write) -->',
  '### Models',
  '',
  '| family | id | model | parameters | context (tokens) | checkpoint weights | source |',
  '|---|---|---|---|---|---|---|',
  ...presets.models.map(
    (m) =>
      `| ${cell(m.family)} | \`${m.id}\` | ${cell(m.label)} | ${grouped(m.parameter_count)} | ${m.context_window > 0 ? grouped(m.context_window) : 'not stated'} | ${weights(m)} | ${cell(m.source)} |`,
  ),
  '',
  '### GPUs',
  '',
  '| id | GPU | capacity | BF16 / FP8 dense TFLOP/s | HBM TB/s | source |',
  '|---|---|---|---|---|---|',
  ...presets.gpus.map(
    (g) =>
      `| \`${g.id}\` | ${cell(g.label)} | ${capacity(g.capacity_bytes)} (${grouped(g.capacity_bytes / 1e9)} GB) | ${grouped(g.peak_tflops)} / ${g.fp8_tflops > 0 ? grouped(g.fp8_tflops) : 'none'} | ${grouped(g.hbm_tbps)} | ${cell(g.source)} |`,
  ),
  '<!-- preset-table:end -->',
].join('\n');

const path = join(root, 'docs/presets.md');
writeOrCheck(
  write,
  'preset-table.mjs',
  [{ path, text: withBlock(path, 'preset-table', block), what: "the engine's presets" }],
  `all ${presets.models.length} models and ${presets.gpus.length} GPUs`,
);
