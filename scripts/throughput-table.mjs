#!/usr/bin/env node
// Prints docs/planner.md's validation table of the step-time estimate: every published training throughput in
// tests/fixtures/throughput.json against membudget's estimate (tokens/s per GPU), beside a plain 40%-MFU
// estimate, and where the published layout ranks in the planner's search for the same GPUs and global batch.
// Run after a native build: node scripts/throughput-table.mjs [--write | --check] [path/to/membudget]
// --write replaces the table between the markers in docs/planner.md; --check exits 1 when that table is not what
// the engine gives now (a ctest, docs_planner_table_current).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, pct, updateDocTable } from './doc-table.mjs';

const root = resolve(fileURLToPath(import.meta.url), '../..');
const args = process.argv.slice(2);
const binary = resolve(args.find((a) => !a.startsWith('--')) ?? process.env.MEMBUDGET ?? resolve(root, 'build/membudget'));
const fixture = JSON.parse(readFileSync(resolve(root, 'tests/fixtures/throughput.json'), 'utf8'));
/** The issue's baseline: a plain estimate at 40% of the dense BF16 peak. */
const BASELINE_MFU = 0.4;

/** @param {number} value */
const count = (value) => Math.round(value).toLocaleString('en-US');

/** @param {string[]} command @param {unknown} input */
function run(command, input) {
  const out = spawnSync(binary, command, { input: JSON.stringify(input), encoding: 'utf8', maxBuffer: 1 << 30 });
  if (out.error) throw out.error;
  // Exit status 1 only says the configuration does not fit its GPU; 2 is a refused configuration.
  if (out.status !== 0 && out.status !== 1) throw new Error(`membudget ${command.join(' ')} exited ${out.status}: ${out.stderr}`);
  return JSON.parse(out.stdout);
}

/**
 * @typedef {{ row: any; published: number; estimate: number; error: number; baselineError: number; rated: boolean;
 *   best: any; behind: number; rank: number; verdict: string; moe: boolean; low: number; high: number }} Row
 */
/** @type {Row[]} */
const rows = fixture.rows.map((/** @type {any} */ row) => {
  const c = row.config;
  const result = run(['eval', '-'], c);
  if (result.errors.length > 0) throw new Error(`${row.id}: ${result.errors.map((/** @type {any} */ e) => e.message).join('; ')}`);
  const published = row.published.tokens_per_second_per_gpu;
  const estimate = result.tokens_per_second_per_gpu;
  const baseline = (BASELINE_MFU * result.config.peak_tflops * 1e12) / result.step_time.model_flops_per_token;
  // The planner over the same GPUs and global batch: where the published layout's own estimate stands against the
  // recommended row's (the published layout may use settings outside the search: op checkpointing, interleaving).
  const gpus = c.tp * c.pp * (c.cp ?? 1) * c.dp;
  const plan = run(['plan', '--json', '--config', '-', '--gpus', String(gpus), '--global-batch', String(c.dp * c.mb * c.microbatches)], c);
  const best = plan.recommended ? plan.rows[plan.recommended.index] : undefined;
  const behind = best ? best.tokens_per_second_per_gpu / estimate - 1 : NaN;
  const faster = plan.rows.filter((/** @type {any} */ r) => r.verdict === 'fits' && r.tokens_per_second_per_gpu > estimate * (1 + 1e-9));
  return {
    row,
    published,
    estimate,
    error: (estimate - published) / published,
    baselineError: (baseline - published) / published,
    rated: row.complete !== false,
    moe: (result.config.experts ?? 0) > 0,
    best,
    behind,
    rank: faster.length + 1,
    verdict: result.verdict,
    // The band: tokens/s with every runtime constant at its published range's slow and fast ends.
    low: result.tokens_per_second_per_gpu_low,
    high: result.tokens_per_second_per_gpu_high,
  };
});

/** @param {Row[]} group */
const stats = (group) => {
  const e = group.map((r) => Math.abs(r.error)),
    b = group.map((r) => Math.abs(r.baselineError));
  // The estimate is its band's midpoint (docs/planner.md, "The band"): how often the measured value falls inside the
  // band, and in how many rows the estimate is the faster.
  const inside = group.filter((r) => r.low <= r.published && r.published <= r.high).length;
  const over = group.filter((r) => r.error > 0).length;
  return (
    `median |error| ${(median(e) * 100).toFixed(1)}%, worst ${(Math.max(...e) * 100).toFixed(1)}% (40%-MFU estimate: median ${(median(b) * 100).toFixed(1)}%, worst ${(Math.max(...b) * 100).toFixed(1)}%); ` +
    `measured inside the band in ${inside} of ${group.length}, the estimate faster in ${over}`
  );
};
const layout = (/** @type {any} */ c) =>
  `TP ${c.tp} PP ${c.pp}${c.vpp > 1 ? `×${c.vpp}` : ''}${(c.cp ?? 1) > 1 ? ` CP ${c.cp}` : ''} DP ${c.dp} ZeRO ${c.zero} mb ${c.mb} m ${c.microbatches} ${c.ckpt}`;
const rowLayout = (/** @type {any} */ r) =>
  `TP ${r.tp} PP ${r.pp}${r.cp > 1 ? ` CP ${r.cp}` : ''} DP ${r.dp} ZeRO ${r.zero} mb ${r.mb} ${r.ckpt}`;

const lines = [];
// Dense and MoE rows apart: the MoE estimate is not yet held by its rows (issue 28), and one summary over both
// would hide either.
const dense = rows.filter((r) => !r.moe);
const moe = rows.filter((r) => r.moe);
const rated = dense.filter((r) => r.rated);
const within = rows.filter((r) => r.behind <= 0.1 || r.rank <= 10);
lines.push(
  `All ${dense.length} dense rows: ${stats(dense)}.`,
  '',
  `The ${rated.length} complete dense rows: ${stats(rated)}.`,
  '',
  `The ${dense.length - rated.length} dense rows marked * (incomplete: hardware the model cannot express, or settings the source does not state; each says why): ${stats(dense.filter((r) => !r.rated))}.`,
  '',
  `The ${moe.length} MoE rows (Megatron-Bridge, Megatron-MoE-ModelZoo): ${stats(moe)}; complete ${moe.filter((r) => r.rated).length}: ${stats(moe.filter((r) => r.rated))}.`,
  '',
  `Published layout among the planner's 10 fastest rows or within 10% of the recommended row's estimate: ${within.length} of ${rows.length}.`,
  '',
);
// Ranking: where one source measured several configurations of one model on one cluster (same source, model,
// GPU type and count), does the estimate order them as measured? Kendall's tau-b per such group of two or more rows
// whose pairs are not all ties, and over every group's pairs pooled (issue 28, item 4).
/** @param {Row} r */
const rankingKey = (r) => {
  const c = r.row.config;
  return [r.row.source.title, c.model, c.hidden ?? '', c.layers ?? '', c.gpu, c.tp * c.pp * (c.cp ?? 1) * c.dp].join(' | ');
};
/** @param {Row[]} group @returns {{ concordant: number; discordant: number; pairs: number; tiesPublished: number; tiesEstimate: number }} */
const pairCounts = (group) => {
  let concordant = 0,
    discordant = 0,
    pairs = 0,
    tiesPublished = 0,
    tiesEstimate = 0;
  for (let i = 0; i < group.length; ++i)
    for (let j = i + 1; j < group.length; ++j) {
      const dx = group[i].published - group[j].published;
      const dy = group[i].estimate - group[j].estimate;
      pairs += 1;
      if (dx === 0) tiesPublished += 1;
      if (Math.abs(dy) <= 1e-9 * Math.max(group[i].estimate, group[j].estimate)) tiesEstimate += 1;
      else if (dx * dy > 0) concordant += 1;
      else if (dx * dy < 0) discordant += 1;
    }
  return { concordant, discordant, pairs, tiesPublished, tiesEstimate };
};
/** @param {{ concordant: number; discordant: number; pairs: number; tiesPublished: number; tiesEstimate: number }} k */
const tauB = (k) => (k.concordant - k.discordant) / Math.sqrt((k.pairs - k.tiesPublished) * (k.pairs - k.tiesEstimate));
const candidateGroups = [...new Set(rows.map(rankingKey))]
  .map((key) => rows.filter((r) => rankingKey(r) === key))
  .filter((group) => group.length >= 2)
  .map((group) => ({ group, counts: pairCounts(group) }));
const rankingGroups = candidateGroups.filter(({ counts }) => Number.isFinite(tauB(counts)));
const allTies = candidateGroups.length - rankingGroups.length;
const pooled = rankingGroups.reduce(
  (sum, { counts }) => ({
    concordant: sum.concordant + counts.concordant,
    discordant: sum.discordant + counts.discordant,
    pairs: sum.pairs + counts.pairs,
    tiesPublished: sum.tiesPublished + counts.tiesPublished,
    tiesEstimate: sum.tiesEstimate + counts.tiesEstimate,
  }),
  { concordant: 0, discordant: 0, pairs: 0, tiesPublished: 0, tiesEstimate: 0 },
);
lines.push(
  `Ranking: over ${rankingGroups.length} groups of configurations one source measured of one model on one cluster, Kendall's τ-b between the published and the estimated tokens/s per GPU is ${tauB(pooled).toFixed(2)} over their ${pooled.pairs} pairs pooled (${pooled.concordant} ordered as measured, ${pooled.discordant} against)${allTies > 0 ? `; ${allTies} group${allTies > 1 ? 's' : ''} whose every pair is a tie (configurations membudget does not tell apart, such as Megatron-Bridge's FP8 and MXFP8 rows) left out` : ''}.`,
  '',
  '| source | model | GPUs | rows | τ-b |',
  '|---|---|---:|---:|---:|',
  ...rankingGroups.map(({ group, counts }) => {
    const c = group[0].row.config;
    const name = c.model === 'custom' ? `custom (h ${c.hidden}, ${c.layers} layers)` : c.model;
    return `| ${group[0].row.source.title} | ${name} | ${c.tp * c.pp * (c.cp ?? 1) * c.dp} × ${c.gpu} | ${group.length} | ${tauB(counts).toFixed(2)} |`;
  }),
  '',
);
const sources = [...new Set(rows.map((r) => r.row.source.title))];
for (const title of sources) {
  const group = rows.filter((r) => r.row.source.title === title);
  lines.push(`#### ${title} (${group.length} rows; ${stats(group)})`, '');
  lines.push(
    '| row | GPU | published layout | published tokens/s/GPU | estimate | error | 40%-MFU error | recommended layout (estimate) | published layout: rank, behind the recommended |',
    '|---|---|---|---:|---:|---:|---:|---|---|',
  );
  for (const r of group) {
    const c = r.row.config;
    const recommended = r.best ? `${rowLayout(r.best)} (${count(r.best.tokens_per_second_per_gpu)})` : 'none fits';
    const standing = r.best
      ? `${r.rank}, ${pct(r.behind)}${r.verdict === 'fits' ? '' : ` (membudget: ${r.verdict.replace(/_/g, ' ')})`}`
      : '–';
    lines.push(
      `| ${r.row.id}${r.rated ? '' : ' *'} | ${c.gpu} | ${layout(c)} | ${count(r.published)} | ${count(r.estimate)} | ${pct(r.error)} | ${pct(r.baselineError)} | ${recommended} | ${standing} |`,
    );
  }
  lines.push('');
}
const table = lines.join('\n').trimEnd();

updateDocTable({ path: resolve(root, 'docs/planner.md'), name: 'throughput-table', table, args, script: 'scripts/throughput-table.mjs' });
