#!/usr/bin/env node
// Prints docs/accuracy.md's table, by framework: every published measurement in tests/fixtures/measured/
// against membudget's own method, compared as tests/cpp/test_validation.cpp compares them (an allocator counter
// against the prediction less the allowance lines, which the allocator never sees; max_reserved against the
// predicted reserved bytes; nvidia-smi against the full total; `measured_lines` against those lines; the named
// pipeline stage, else the peak stage).
// Run after a native build: node scripts/validation-table.mjs [--write] [path/to/membudget]
// --write replaces the table between the markers in docs/accuracy.md; --check exits 1 when that table is not what
// the engine gives now (a ctest, docs_accuracy_table_current).
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, pct, updateDocTable } from './doc-table.mjs';

const root = resolve(fileURLToPath(import.meta.url), '../..');
const args = process.argv.slice(2);
const binary = resolve(args.find((a) => !a.startsWith('--')) ?? process.env.MEMBUDGET ?? resolve(root, 'build/membudget'));
const dir = resolve(root, 'tests/fixtures/measured');
const ALLOCATOR_METRICS = new Set(['max_allocated', 'max_reserved', 'active']);
const FRAMEWORKS = ['megatron', 'torchtitan', 'torchtune', 'deepspeed', 'hf_accelerate', 'vllm'];

/** @param {number} bytes */
const gib = (bytes) => (bytes / 2 ** 30).toFixed(2);

/** @typedef {{name: string, framework: string, features: string[], fixture: any, predicted: number, error: number}} Row */
/** @type {Row[]} */
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
  /** @type {{errors: {message: string}[], lines: {id: string, origin: string}[], stages: {total_bytes: number, reserved_bytes: number | null, lines: Record<string, number>}[], peak_stage: number, reserved_bytes: number | null, error_band: {framework: string, features: string[]}}} */
  const result = JSON.parse(run.stdout);
  if (result.errors.length > 0) throw new Error(`${name}: ${result.errors.map((e) => e.message).join('; ')}`);
  const stage = result.stages[fixture.pipeline_stage ?? result.peak_stage];
  if (!stage) throw new Error(`${name}: no pipeline stage ${fixture.pipeline_stage}`);
  let predicted;
  if (fixture.measured_lines) {
    predicted = fixture.measured_lines.reduce((/** @type {number} */ sum, /** @type {string} */ id) => sum + stage.lines[id], 0);
  } else if (fixture.metric === 'max_reserved' && stage.reserved_bytes) {
    predicted = stage.reserved_bytes;
  } else {
    // An allocator counter never sees the allowance lines (CUDA context, NCCL buffers).
    const excluded = ALLOCATOR_METRICS.has(fixture.metric) ? result.lines.filter((l) => l.origin === 'allowance').map((l) => l.id) : [];
    predicted = stage.total_bytes - excluded.reduce((sum, id) => sum + stage.lines[id], 0);
  }
  const error = (predicted - fixture.measured_bytes) / fixture.measured_bytes;
  // The family the engine files the run under (membudget/evaluate/error_band.hpp runFamily).
  const { framework, features } = result.error_band;
  rows.push({ name: name.replace(/\.json$/, ''), framework, features, fixture, predicted, error });
}

const lines = [];
/** @param {Row[]} group */
const summary = (group) => {
  const complete = group.filter((r) => r.fixture.complete);
  const absolute = complete.map((r) => Math.abs(r.error));
  return complete.length
    ? `complete rows ${complete.length}: median |error| ${(median(absolute) * 100).toFixed(1)}%, worst ${(Math.max(...absolute) * 100).toFixed(1)}%`
    : 'no complete rows';
};
for (const framework of FRAMEWORKS) {
  const group = rows.filter((r) => r.framework === framework);
  lines.push(`### ${framework} (${group.length} rows; ${summary(group)})`, '');
  if (group.length === 0) {
    lines.push('No published measurement with a complete configuration was found.', '');
    continue;
  }
  lines.push('| fixture | metric | stage | measured (GiB) | predicted (GiB) | error | complete |', '|---|---|---:|---:|---:|---:|---|');
  for (const { name, fixture, predicted, error } of group) {
    const stage = fixture.pipeline_stage === null ? 'peak' : String(fixture.pipeline_stage);
    const metric = fixture.measured_lines ? `${fixture.metric} (${fixture.measured_lines.join(' + ')})` : fixture.metric;
    lines.push(
      `| ${name} | ${metric} | ${stage} | ${gib(fixture.measured_bytes)} | ${gib(predicted)} | ${pct(error)} | ${fixture.complete ? 'yes' : `not expressible: ${fixture.not_expressible}`} |`,
    );
  }
  lines.push('');
}
lines.push(`All ${rows.length} rows; ${summary(rows)}.`);
const table = lines.join('\n');

updateDocTable({ path: resolve(root, 'docs/accuracy.md'), name: 'validation-table', table, args, script: 'scripts/validation-table.mjs' });

// The engine's names for the features the JSON lists (membudget/evaluate/error_band.hpp RunFeature); a name missing
// here fails the build of the table, not silently.
/** @type {Record<string, string>} */
const FEATURE_BITS = {
  moe: 'kRunMoe',
  pp: 'kRunPipeline',
  cp: 'kRunContext',
  ep: 'kRunExperts',
  lora: 'kRunAdapters',
  compile: 'kRunCompile',
  fp8: 'kRunFp8',
};
for (const r of rows) for (const f of r.features) if (!(f in FEATURE_BITS)) throw new Error(`${r.name}: feature ${f} has no RunFeature`);
// Every row, as the engine's error band reads them (the complete ones make a band) (engine/src/evaluate/validation_runs.inc).
const inc = [
  '// clang-format off',
  '// Generated by scripts/validation-table.mjs --write from every row of tests/fixtures/measured/ as the',
  "// engine predicts them, in the fixtures' file order: {framework, features, (predicted − measured) / measured,",
  "// complete}, each followed by a comment naming its fixture (no names in the page's module). Do not edit.",
  ...rows.map(
    (r) =>
      `{"${r.framework}", ${r.features.map((f) => FEATURE_BITS[f]).join(' | ') || '0'}, ${(Math.round(r.error * 1e6) / 1e6).toString()}, ${r.fixture.complete ? 'true' : 'false'}},  // ${r.name}`,
  ),
  '// clang-format on',
  '',
].join('\n');
const incPath = resolve(root, 'engine/src/evaluate/validation_runs.inc');
if (args.includes('--write')) writeFileSync(incPath, inc);
else if (args.includes('--check') && readFileSync(incPath, 'utf8') !== inc) {
  console.error(`${incPath} is not what the engine gives now: run node scripts/validation-table.mjs --write`);
  process.exit(1);
}
