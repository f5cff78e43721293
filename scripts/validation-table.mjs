#!/usr/bin/env node
// Prints the README's "Accuracy against measured runs" table: every published measurement in
// tests/fixtures/measured/ against membudget's own method, compared as tests/cpp/test_validation.cpp compares
// them (an allocator counter against the prediction less the allowance lines, which the allocator never
// sees; nvidia-smi against the full total; the named pipeline stage, else the peak stage).
// Run after a native build: node scripts/validation-table.mjs [path/to/membudget]
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(fileURLToPath(import.meta.url), '../..');
const binary = resolve(process.argv[2] ?? process.env.MEMBUDGET ?? resolve(root, 'build/membudget'));
const dir = resolve(root, 'tests/fixtures/measured');
const ALLOCATOR_METRICS = new Set(['max_allocated', 'max_reserved', 'active']);

/** @param {number[]} values */
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
/** @param {number} bytes */
const gb = (bytes) => (bytes / 1e9).toFixed(2);
/** @param {number} fraction */
const pct = (fraction) => `${fraction >= 0 ? '+' : '−'}${Math.abs(fraction * 100).toFixed(1)}%`;

/** @type {{name: string, fixture: any, predicted: number, error: number}[]} */
const rows = [];
for (const name of readdirSync(dir)
  .filter((f) => f.endsWith('.json'))
  .sort()) {
  const fixture = JSON.parse(readFileSync(resolve(dir, name), 'utf8'));
  const config = { ...fixture.config, method: 'membudget' };
  // Exit status 1 only says the configuration does not fit its GPU; 2 is a refused configuration.
  const run = spawnSync(binary, ['eval', '-'], { input: JSON.stringify(config), encoding: 'utf8' });
  if (run.error) throw run.error;
  if (run.status !== 0 && run.status !== 1) throw new Error(`${name}: membudget eval exited ${run.status}: ${run.stderr}`);
  /** @type {{errors: {message: string}[], lines: {id: string, origin: string}[], stages: {total_bytes: number, lines: Record<string, number>}[], peak_stage: number}} */
  const result = JSON.parse(run.stdout);
  if (result.errors.length > 0) throw new Error(`${name}: ${result.errors.map((e) => e.message).join('; ')}`);
  // An allocator counter never sees the allowance lines (CUDA context, NCCL buffers).
  const excluded = ALLOCATOR_METRICS.has(fixture.metric) ? result.lines.filter((l) => l.origin === 'allowance').map((l) => l.id) : [];
  const stage = result.stages[fixture.pipeline_stage ?? result.peak_stage];
  if (!stage) throw new Error(`${name}: no pipeline stage ${fixture.pipeline_stage}`);
  const predicted = stage.total_bytes - excluded.reduce((sum, id) => sum + stage.lines[id], 0);
  const error = (predicted - fixture.measured_bytes) / fixture.measured_bytes;
  rows.push({ name: name.replace(/\.json$/, ''), fixture, predicted, error });
}

console.log('| fixture | metric | stage | measured (GB) | predicted (GB) | error | complete |');
console.log('|---|---|---:|---:|---:|---:|---|');
for (const { name, fixture, predicted, error } of rows) {
  const stage = fixture.pipeline_stage === null ? 'peak' : String(fixture.pipeline_stage);
  const metric = fixture.metric === 'max_reserved' ? 'max_reserved ¹' : fixture.metric;
  console.log(
    `| ${name} | ${metric} | ${stage} | ${gb(fixture.measured_bytes)} | ${gb(predicted)} | ${pct(error)} | ${fixture.complete ? 'yes' : 'no'} |`,
  );
}
const allocated = rows.filter((r) => r.fixture.complete && r.fixture.metric === 'max_allocated');
const absolute = allocated.map((r) => Math.abs(r.error));
const worst = allocated.reduce((a, b) => (Math.abs(b.error) > Math.abs(a.error) ? b : a));
console.log('');
console.log(
  `Complete configurations, allocated peak (${allocated.length} rows): median |error| ${(median(absolute) * 100).toFixed(1)}%, ` +
    `worst ${(Math.abs(worst.error) * 100).toFixed(1)}% (${worst.name}).`,
);
