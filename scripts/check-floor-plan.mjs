#!/usr/bin/env node
// The engine's floor plan (docs/build.md): every file of engine/ belongs to the topic of its folder, and an
// include runs only from a topic to one below it (or within the topic):
//
//   base < model < memory, formats < time < evaluate < plan < io
//
// memory and formats stand side by side: neither includes the other. A file of logic stays under 500 lines;
// data tables (the field table, the presets) may be longer. The include graph between topics is stated in
// docs/build.md between its floor-plan markers: `--write` writes it there, and the check fails when it is stale.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
/** @type {Record<string, number>} */
const RANK = { base: 0, model: 1, memory: 2, formats: 2, time: 3, evaluate: 4, plan: 5, io: 6 };
const MAX_LOGIC_LINES = 500;
// Data tables, one row per field or preset: long by nature, with no logic to split.
const DATA_TABLES = new Set(['engine/src/model/fields.cpp', 'engine/src/model/presets/presets.cpp']);

/** @param {string} dir @returns {string[]} */
function walk(dir) {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory() ? walk(path) : /\.(cpp|hpp|inc)$/.test(name) ? [path] : [];
    });
}

/** The topic of an engine path (engine/src/T/… or engine/include/membudget/T/…), or undefined. @param {string} rel */
function topicOf(rel) {
  const m = /^engine\/(?:src|include\/membudget)\/([^/]+)\//.exec(rel);
  return m ? m[1] : undefined;
}

/** The engine path an include names (public "membudget/…" or private "topic/…"). @param {string} name */
function resolve(name) {
  return name.startsWith('membudget/') ? `engine/include/${name}` : `engine/src/${name}`;
}

/** @type {string[]} */
const problems = [];
/** @type {Map<string, number>} */
const edges = new Map();
const files = [...walk(join(root, 'engine/src')), ...walk(join(root, 'engine/include'))].map((p) => relative(root, p));
for (const file of files) {
  const topic = topicOf(file);
  if (!topic || !(topic in RANK)) {
    problems.push(`${file}: not in a topic folder (${Object.keys(RANK).join(', ')})`);
    continue;
  }
  const text = readFileSync(join(root, file), 'utf8');
  for (const [, name] of text.matchAll(/^#include "([^"]+)"/gm)) {
    const target = resolve(name);
    const to = topicOf(target);
    if (!files.includes(target)) {
      problems.push(`${file}: includes "${name}", which is not an engine header`);
      continue;
    }
    if (!to) continue;
    if (to !== topic) edges.set(`${topic} -> ${to}`, (edges.get(`${topic} -> ${to}`) ?? 0) + 1);
    if (to !== topic && RANK[to] >= RANK[topic]) problems.push(`${file}: ${topic} includes ${to} ("${name}"), which is not below it`);
  }
  const lines = text.split('\n').length;
  if (file.endsWith('.cpp') && lines > MAX_LOGIC_LINES && !DATA_TABLES.has(file))
    problems.push(`${file}: ${lines} lines, over the ${MAX_LOGIC_LINES} a file of logic keeps to`);
}

// The graph as docs/build.md shows it: each topic and the topics it includes, with the number of includes.
const graph = Object.keys(RANK)
  .map((topic) => {
    const out = [...edges]
      .filter(([e]) => e.startsWith(`${topic} -> `))
      .sort((a, b) => RANK[b[0].split(' -> ')[1]] - RANK[a[0].split(' -> ')[1]]);
    return `| \`${topic}/\` | ${out.map(([e, n]) => `\`${e.split(' -> ')[1]}/\` (${n})`).join(', ') || 'nothing'} |`;
  })
  .join('\n');
const block = `<!-- floor-plan:begin -->\n| topic | includes (number of #include lines) |\n|---|---|\n${graph}\n<!-- floor-plan:end -->`;
const docPath = join(root, 'docs/build.md');
const doc = readFileSync(docPath, 'utf8');
const current = doc.replace(/<!-- floor-plan:begin -->[\s\S]*?<!-- floor-plan:end -->/, block);
if (process.argv.includes('--write')) writeFileSync(docPath, current);
else if (current !== doc) problems.push('docs/build.md: the include graph is stale (node scripts/check-floor-plan.mjs --write)');
if (problems.length) {
  for (const p of problems) console.error(`floor plan: ${p}`);
  process.exit(1);
}
console.log(`floor plan: ${files.length} engine files in ${Object.keys(RANK).length} topics, every include downward`);
