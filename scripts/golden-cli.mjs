#!/usr/bin/env node
// The CLI's output over a fixed, deterministic set of about 1,300 configurations, every fixture and a set of
// plans, written to one file: what a refactoring that changes no behaviour must leave byte-identical.
//
//   node scripts/golden-cli.mjs build/membudget > /tmp/before.txt      # before the change
//   node scripts/golden-cli.mjs build/membudget > /tmp/after.txt       # after it
//   cmp /tmp/before.txt /tmp/after.txt
//
// The configurations are the product of every model preset with a few GPUs, layouts, methods, frameworks and
// modes (filtered to those validate() is asked about, accepted or refused: a refusal's message is output too),
// plus every file under tests/fixtures/import (import, eval, export to each format, as text and as JSON), every
// measured fixture (compare-measured), compare and advise on a sample (text and JSON), and plan --json on a few
// layouts, for training and serving.
import { spawnSync } from 'node:child_process';
import { URLSearchParams } from 'node:url';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const cli = process.argv[2] ?? 'build/membudget';
const root = new URL('..', import.meta.url).pathname;

/** @param {string[]} args @param {string} [input] */
function run(args, input) {
  const r = spawnSync(cli, args, { encoding: 'utf8', maxBuffer: 256 << 20, input });
  const stdin = input === undefined ? '' : ` < ${input}`;
  return `$ membudget ${args.join(' ')}${stdin}\n[exit ${r.status}]\n${r.stdout}${r.stderr ? '[stderr]\n' + r.stderr : ''}\n`;
}

/** @param {string} dir @returns {string[]} */
function files(dir) {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...files(path));
    else if (!name.endsWith('.md') && !name.endsWith('.expect.json')) out.push(path);
  }
  return out;
}

const presets = JSON.parse(spawnSync(cli, ['presets'], { encoding: 'utf8' }).stdout);
const models = presets.models.map((/** @type {{ id: string }} */ m) => m.id);
const gpus = ['h100-80gb', 'a100-40gb', 'h200'];
const layouts = ['tp=1&pp=1&dp=8', 'tp=8&pp=1&dp=16&sp=true', 'tp=4&pp=4&dp=8&mb=2&microbatches=16', 'tp=2&pp=2&dp=4&cp=2&zero=3'];
const variants = [
  'method=membudget&ckpt=selective',
  'method=membudget&framework=torchtitan&zero=3&ckpt=none',
  'method=membudget&framework=deepspeed&zero=2',
  'method=chapter',
  'method=korthikanti&ckpt=selective',
  'method=megatron',
  'method=zero&zero=3',
  'mode=inference&mb=16&seq=8192&dp=1',
];

let out = '';
let count = 0;
/** @param {string[]} args @param {string} [input] */
const emit = (args, input) => {
  out += run(args, input);
  count++;
};

// The product: every model, GPU, layout and variant (the layout's own TP may be refused by a model's heads:
// the refusal is output too, which pins validate()'s messages).
for (const model of models)
  for (const [gi, gpu] of gpus.entries())
    for (const [li, layout] of layouts.entries()) {
      // Every variant on the first GPU; on the others, the layout with two variants, to keep the count near 1,300.
      const chosen = gi === 0 ? variants : [variants[(li + gi) % variants.length], variants[(li + gi + 3) % variants.length]];
      for (const variant of chosen) {
        // A variant's keys override the layout's (dp = 1 for inference), each key given once.
        const query = new URLSearchParams({
          model,
          gpu,
          ...Object.fromEntries(new URLSearchParams(layout)),
          ...Object.fromEntries(new URLSearchParams(variant)),
        }).toString();
        emit(['--url', query, '--json']);
      }
    }
// The text table, the tensor sub-ledger and GiB on a sample.
for (const model of models.slice(0, 12)) {
  emit(['--url', `model=${model}&gpu=h100-80gb&tp=8&dp=4&method=membudget&ckpt=selective`, '--tensors', '--gib']);
  emit(['compare', '--url', `model=${model}&gpu=h100-80gb&tp=8&pp=2&dp=4`]);
  emit(['compare', '--url', `model=${model}&gpu=h100-80gb&tp=8&pp=2&dp=4`, '--json']);
  emit(['advise', '--url', `model=${model}&gpu=h100-80gb&tp=4&dp=16&ckpt=none&mb=2&method=membudget`, '--json']);
}
// Every import fixture: what it reads, its checklist, and its export to each format.
for (const file of files(join(root, 'tests/fixtures/import'))) {
  const rel = relative(root, file);
  emit(['import', rel]);
  emit(['--import', rel, '--json']);
  for (const format of ['megatron', 'torchtitan', 'torchtune', 'deepspeed', 'vllm']) emit(['export', '--format', format, '--import', rel]);
  emit(['export', '--format', 'sglang', '--import', rel, '--json']);
  emit(['export', '--format', 'trtllm', '--import', rel, '--json']);
}
// Every measured run's configuration, and the published throughput rows' (the step-time estimate).
for (const file of files(join(root, 'tests/fixtures/measured')))
  emit(['eval', '-'], JSON.stringify(JSON.parse(readFileSync(file, 'utf8')).config));
for (const row of JSON.parse(readFileSync(join(root, 'tests/fixtures/throughput.json'), 'utf8')).rows ?? [])
  emit(['eval', '-'], JSON.stringify(row.config));
emit(['compare-measured', 'tests/fixtures/measured-sample.json', '--json']);
emit(['compare-measured', 'tests/fixtures/measured-sample.json']);
// The field table, the presets, the default example.
emit(['fields']);
emit(['presets']);
emit([]);
// Plans: every row, Pareto front first, the recommendation.
const plans = [
  ['--model', 'llama-3.1-8b', '--gpu', 'h100-80gb', '--gpus', '64', '--seq', '8192', '--global-batch', '512'],
  ['--model', 'llama-3.1-70b', '--gpu', 'h100-80gb', '--gpus', '256', '--method', 'membudget', '--framework', 'torchtitan'],
  ['--model', 'mixtral-8x7b', '--gpu', 'a100-80gb', '--gpus', '64', '--method', 'membudget'],
  ['--model', 'llama-3.1-405b', '--gpu', 'h100-80gb', '--gpus', '1024', '--seq', '8192', '--global-batch', '2048', '--method', 'membudget'],
];
for (const plan of plans) {
  emit(['plan', ...plan, '--json']);
  emit(['plan', ...plan, '--sort', 'speed']);
}
// Serving plans: every row with its query, under targets, and each GPU's recommended row.
const servingPlans = [
  ['--model', 'llama-3.1-8b', '--mode', 'inference', '--gpus', '8'],
  ['--model', 'mixtral-8x7b', '--mode', 'inference', '--gpus', '16', '--ttft-ms', '500'],
  ['--model', 'llama-3.1-70b', '--mode', 'inference', '--gpus', '8', '--which-gpu'],
];
for (const plan of servingPlans) {
  emit(['plan', ...plan, '--json']);
  emit(['plan', ...plan]);
}
process.stdout.write(out);
process.stderr.write(`golden-cli: ${count} invocations\n`);
