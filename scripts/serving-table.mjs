#!/usr/bin/env node
// Prints docs/inference.md's validation table of the serving-speed estimate: every published serving benchmark in
// tests/fixtures/serving.json against membudget's TPOT, throughput and TTFT, beside a plain roofline's, with the
// median and worst error per engine and metric.
// Run after a native build: node scripts/serving-table.mjs [--write | --check] [path/to/membudget]
// --write replaces the table between the markers in docs/inference.md; --check exits 1 when that table is not what
// the engine gives now (a ctest, docs_inference_table_current).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, pct, updateDocTable } from './doc-table.mjs';

const root = resolve(fileURLToPath(import.meta.url), '../..');
const args = process.argv.slice(2);
const binary = resolve(args.find((a) => !a.startsWith('--')) ?? process.env.MEMBUDGET ?? resolve(root, 'build/membudget'));
const fixture = JSON.parse(readFileSync(resolve(root, 'tests/fixtures/serving.json'), 'utf8'));

/** @param {unknown} input */
function evaluate(input) {
  const out = spawnSync(binary, ['eval', '-'], { input: JSON.stringify(input), encoding: 'utf8', maxBuffer: 1 << 30 });
  if (out.error) throw out.error;
  // Exit status 1 only says the configuration does not fit its GPU; 2 is a refused configuration.
  if (out.status !== 0 && out.status !== 1) throw new Error(`membudget eval exited ${out.status}: ${out.stderr}`);
  return JSON.parse(out.stdout);
}

/** The metrics compared, each as (published, estimate, roofline, the band's low and high where it has one) from a row and its evaluation. */
const METRICS = [
  {
    id: 'tpot',
    label: 'TPOT',
    /** @param {any} row @param {any} r */
    pick: (row, r) =>
      row.published.tpot_ms !== undefined
        ? [row.published.tpot_ms, r.tpot_s * 1e3, r.serving.roofline.tpot_s * 1e3, r.tpot_s_low * 1e3, r.tpot_s_high * 1e3]
        : undefined,
  },
  {
    id: 'throughput',
    label: 'output tokens/s per GPU',
    pick: (/** @type {any} */ row, /** @type {any} */ r) => {
      const gpus = r.serving.gpus_per_replica * r.config.dp;
      const published =
        row.published.output_tokens_per_second_per_gpu ??
        (row.published.output_tokens_per_second ?? row.derived?.output_tokens_per_second) / gpus;
      return Number.isFinite(published)
        ? [
            published,
            r.output_tokens_per_second_per_gpu,
            r.serving.roofline.output_tokens_per_second_per_gpu,
            r.output_tokens_per_second_per_gpu_low,
            r.output_tokens_per_second_per_gpu_high,
          ]
        : undefined;
    },
  },
  {
    id: 'latency',
    label: 'request latency',
    pick: (/** @type {any} */ row, /** @type {any} */ r) =>
      row.published.request_latency_ms !== undefined
        ? [
            row.published.request_latency_ms,
            r.serving.request_latency_s * 1e3,
            (r.serving.roofline.ttft_s + (r.serving.output_tokens - 1) * r.serving.roofline.tpot_s) * 1e3,
          ]
        : undefined,
  },
  {
    id: 'ttft',
    label: 'TTFT',
    pick: (/** @type {any} */ row, /** @type {any} */ r) =>
      row.published.ttft_ms !== undefined
        ? [row.published.ttft_ms, r.ttft_s * 1e3, r.serving.roofline.ttft_s * 1e3, r.ttft_s_low * 1e3, r.ttft_s_high * 1e3]
        : undefined,
  },
];

/**
 * @typedef {{ published: number; estimate: number; roofline: number; error: number; rooflineError: number; inside?: boolean }} Metric
 * @typedef {{ row: any; r: any; metrics: Record<string, Metric> }} Row
 */
/** @type {Row[]} */
const rows = fixture.rows.map((/** @type {any} */ row) => {
  const r = evaluate(row.config);
  if (r.errors.length > 0) throw new Error(`${row.id}: ${r.errors.map((/** @type {any} */ e) => e.message).join('; ')}`);
  if (!r.serving) throw new Error(`${row.id}: no serving estimate`);
  /** @type {Record<string, Metric>} */
  const metrics = {};
  for (const m of METRICS) {
    const v = m.pick(row, r);
    if (!v) continue;
    const [published, estimate, roofline, low, high] = v;
    metrics[m.id] = {
      published,
      estimate,
      roofline,
      error: (estimate - published) / published,
      rooflineError: (roofline - published) / published,
      // Whether the published value lies inside the estimate's band (the runtime constants' published ranges).
      inside: low === undefined ? undefined : low <= published && published <= high,
    };
  }
  return { row, r, metrics };
});

/** @param {number} v */
const num = (v) => (v >= 100 ? Math.round(v).toLocaleString('en-US') : v.toFixed(v >= 10 ? 1 : 2));
// The GPU's vendor, as the engines' kernels differ by it (docs/inference.md): AMD's Instinct parts, NVIDIA's the rest.
/** @param {Row} x */
const vendor = (x) => (String(x.row.config.gpu).startsWith('mi') ? 'amd' : 'nvidia');
const groups = [...new Set(rows.map((x) => `${x.row.config.framework} ${vendor(x)}`))].sort();
const lines = [];
lines.push(
  '| engine, vendor | metric | rows | median abs(error) | worst abs(error) | inside the band | estimate faster | roofline: median | roofline: worst |',
  '|---|---|---:|---:|---:|---:|---:|---:|---:|',
);
for (const key of [...groups, 'all nvidia', 'all']) {
  for (const m of METRICS) {
    const group = rows.filter(
      (x) => (key === 'all' || key === `all ${vendor(x)}` || key === `${x.row.config.framework} ${vendor(x)}`) && x.metrics[m.id],
    );
    if (group.length === 0) continue;
    const engine = key;
    const e = group.map((x) => Math.abs(x.metrics[m.id].error));
    const b = group.map((x) => Math.abs(x.metrics[m.id].rooflineError));
    const banded = group.filter((x) => x.metrics[m.id].inside !== undefined);
    const inside = banded.length ? `${banded.filter((x) => x.metrics[m.id].inside).length} of ${banded.length}` : '–';
    // Faster: a shorter time, or more tokens per second, than measured.
    const faster = group.filter((x) => (m.id === 'throughput' ? 1 : -1) * x.metrics[m.id].error > 0).length;
    lines.push(
      `| ${engine} | ${m.label} | ${group.length} | ${(median(e) * 100).toFixed(1)}% | ${(Math.max(...e) * 100).toFixed(1)}% | ${inside} | ${faster} | ${(median(b) * 100).toFixed(1)}% | ${(Math.max(...b) * 100).toFixed(1)}% |`,
    );
  }
}
lines.push('');
lines.push(
  '| row | engine | model | GPUs | in / out | concurrency | metric | published | estimate | error | roofline | roofline error |',
  '|---|---|---|---|---|---:|---|---:|---:|---:|---:|---:|',
);
for (const x of rows) {
  const c = x.row.config;
  for (const m of METRICS) {
    const v = x.metrics[m.id];
    if (!v) continue;
    const unit = m.id === 'throughput' ? '' : ' ms';
    lines.push(
      `| ${x.row.id} | ${x.row.engine} ${x.row.version} | ${c.model} ${c.weight_dtype}${c.kv_dtype !== 'bf16' ? ` KV ${c.kv_dtype}` : ''} | ${c.tp * (c.pp ?? 1)} × ${c.gpu} TP ${c.tp}${c.ep > 1 ? ` EP ${c.ep}` : ''} | ${c.input_tokens} / ${c.output_tokens} | ${c.mb} | ${m.label} | ${num(v.published)}${unit} | ${num(v.estimate)}${unit} | ${pct(v.error)} | ${num(v.roofline)}${unit} | ${pct(v.rooflineError)} |`,
    );
  }
}
lines.push('');
lines.push(`Rows kept but not compared (${fixture.excluded.length}), each with the reason:`, '');
for (const e of fixture.excluded) lines.push(`- ${e.id}: ${e.why}`);
const table = lines.join('\n').trimEnd();

updateDocTable({ path: resolve(root, 'docs/inference.md'), name: 'serving-table', table, args, script: 'scripts/serving-table.mjs' });
