#!/usr/bin/env node
// docs/cli.md's table of configuration keys, generated from the engine's field table (`membudget fields`), so
// that no key is missing and no range is restated by hand: every key, by group, in the table's order, with its
// range, default and when it applies (the field table's applies). `--write` writes it between the markers; `--check` (a ctest) fails when it is stale.
//
//   node scripts/field-table.mjs --write build/membudget
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const mode = process.argv[2];
const cli = process.argv[3] ?? join(root, 'build/membudget');
if (mode !== '--write' && mode !== '--check') {
  console.error('usage: node scripts/field-table.mjs --write|--check [path/to/membudget]');
  process.exit(2);
}

/** @typedef {{ key: string; label: string; group: string; kind: string; default: string; range: string; unit: string; help: string; applies: string }} Field */
/** @type {Field[]} */
const fields = JSON.parse(execFileSync(cli, ['fields'], { encoding: 'utf8' }));
/** @param {string} text */
const cell = (text) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
const groups = [...new Set(fields.map((f) => f.group))];
const rows = groups.flatMap((group) =>
  fields
    .filter((f) => f.group === group)
    .map(
      (f) =>
        `| \`${f.key}\` | ${group} | ${cell(f.label)}${f.unit ? ` (${cell(f.unit)})` : ''} | ${cell(f.range)} | \`${cell(f.default)}\` | ${f.applies ? cell(f.applies) : 'always'} |`,
    ),
);
const block = [
  '<!-- field-table:begin (node scripts/field-table.mjs --write) -->',
  `| key | group | what | allowed | default | applies when |`,
  '|---|---|---|---|---|---|',
  ...rows,
  '<!-- field-table:end -->',
].join('\n');

const path = join(root, 'docs/cli.md');
const doc = readFileSync(path, 'utf8');
const pattern = /<!-- field-table:begin[^>]*-->[\s\S]*?<!-- field-table:end -->/;
if (!pattern.test(doc)) {
  console.error('docs/cli.md has no field-table markers');
  process.exit(1);
}
const current = doc.replace(pattern, block);
if (mode === '--write') {
  writeFileSync(path, current);
  console.log(`docs/cli.md: ${fields.length} keys written`);
} else if (current !== doc) {
  console.error('docs/cli.md: the key table is not the field table (node scripts/field-table.mjs --write build/membudget)');
  process.exit(1);
} else {
  console.log(`docs/cli.md: the key table holds all ${fields.length} keys of the field table`);
}
