#!/usr/bin/env node
// The house rules that are not the floor plan's (scripts/check-floor-plan.mjs keeps the folders), run as a test:
//
// 1. A C++ function (engine/, cli/, wasm/) keeps to MAX_FUNCTION_LINES lines: one function, one decision (manifold's
//    functions rarely pass 100 lines). Tables are constant arrays (a record's columns, the field table), not functions;
//    the wasm's registration is a function and keeps to the line too.
// 2. A file of the page (web/src/*.ts, generated files aside) keeps to MAX_PAGE_LINES lines: one view a file.
// 3. A framework's file in engine/src/formats (megatron, torchtitan, the reader, the writer, …) depends on the types the
//    formats share, membudget/formats/format_types.hpp, never on the dispatchers that list every format: only
//    import.cpp and export.cpp include membudget/formats/import.hpp or export.hpp, and those two headers declare none of
//    the shared types (ImportInput, Unmapped, ImportResult, ExportResult).
//
// docs/build.md shows the longest functions between its function-length markers: `--write` writes them there, and
// the check fails when that table is stale.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const MAX_FUNCTION_LINES = 100;
const MAX_PAGE_LINES = 600;

/** @param {string} dir @param {RegExp} pattern @returns {string[]} */
function walk(dir, pattern) {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory() ? walk(path, pattern) : pattern.test(name) ? [path] : [];
    });
}

/**
 * The text with comments, string and character literals (raw strings too) blanked, newlines kept, so that braces
 * and parentheses in them do not count.
 * @param {string} text
 */
function code(text) {
  let out = '';
  let i = 0;
  const keepNewlines = (/** @type {string} */ s) => s.replace(/[^\n]/g, '');
  while (i < text.length) {
    const c = text[i];
    const next = text[i + 1];
    if (c === '/' && next === '/') {
      while (i < text.length && text[i] !== '\n') i++;
    } else if (c === '/' && next === '*') {
      const end = text.indexOf('*/', i + 2);
      const stop = end < 0 ? text.length : end + 2;
      out += keepNewlines(text.slice(i, stop));
      i = stop;
    } else if (c === 'R' && next === '"' && !/\w/.test(text[i - 1] ?? '')) {
      const open = /^R"([^(]*)\(/.exec(text.slice(i));
      const close = open ? text.indexOf(`)${open[1]}"`, i + open[0].length) : -1;
      const stop = open && close >= 0 ? close + open[1].length + 2 : text.length;
      out += `""${keepNewlines(text.slice(i, stop))}`;
      i = stop;
    } else if (c === '"' || (c === "'" && !/[0-9a-fA-F]/.test(text[i - 1] ?? ''))) {
      // A character literal, not a digit separator (1'000).
      let j = i + 1;
      while (j < text.length && text[j] !== c && text[j] !== '\n') j += text[j] === '\\' ? 2 : 1;
      out += c + c;
      i = j + 1;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

/**
 * The outermost function bodies of a C++ file: a `{` whose header (the text since the last `;`, `{` or `}`) ends in a
 * parameter list and is no control statement, type or initializer. A lambda or a local class counts as part of its
 * function.
 * @param {string} file
 * @returns {{ name: string; line: number; lines: number }[]}
 */
export function functionsOf(file) {
  const text = code(readFileSync(file, 'utf8'));
  /** @type {{ name: string; line: number; lines: number }[]} */
  const found = [];
  /** @type {{ isFunction: boolean; line: number; name: string }[]} */
  const stack = [];
  let header = '';
  let line = 1;
  for (const c of text) {
    if (c === '\n') line++;
    if (c === '{') {
      const h = header.replace(/\s+/g, ' ').trim();
      const inFunction = stack.some((s) => s.isFunction);
      const isFunction =
        !inFunction &&
        /\)\s*(const\s*)?(noexcept\s*)?(->\s*[\w:<>,\s*&]+)?(override\s*)?$/.test(h) &&
        !/^(namespace|struct|class|enum|union)\b/.test(h) &&
        !/^(if|for|while|switch|catch|else if)\b/.test(h) &&
        !/(^|[^=!<>])=[^=]/.test(h.replace(/\([^()]*\)/g, '()').replace(/operator\W+\(/, 'operator('));
      const name = isFunction ? (/([\w:~]+)\s*(<[^()]*>)?\s*\((?:[^()]|\([^()]*\))*\)[^()]*$/.exec(h)?.[1] ?? '?') : '';
      stack.push({ isFunction, line, name });
      header = '';
    } else if (c === '}') {
      const open = stack.pop();
      if (open?.isFunction) found.push({ name: open.name, line: open.line, lines: line - open.line + 1 });
      header = '';
    } else if (c === ';') {
      header = '';
    } else {
      header += c;
    }
  }
  return found;
}

/** @type {string[]} */
const problems = [];
/** @type {{ where: string; name: string; lines: number }[]} */
const all = [];
const cppFiles = ['engine', 'cli', 'wasm'].flatMap((dir) => walk(join(root, dir), /\.(cpp|hpp)$/));
for (const path of cppFiles) {
  const file = relative(root, path);
  for (const fn of functionsOf(path)) {
    all.push({ where: `${file}:${fn.line}`, name: fn.name, lines: fn.lines });
    if (fn.lines <= MAX_FUNCTION_LINES) continue;
    problems.push(`${file}:${fn.line}: ${fn.name} is ${fn.lines} lines, over the ${MAX_FUNCTION_LINES} a function keeps to`);
  }
}
for (const path of walk(join(root, 'web/src'), /\.ts$/)) {
  const file = relative(root, path);
  if (file.startsWith('web/src/generated/') || file.endsWith('.d.ts')) continue;
  const lines = readFileSync(path, 'utf8').split('\n').length;
  if (lines > MAX_PAGE_LINES) problems.push(`${file}: ${lines} lines, over the ${MAX_PAGE_LINES} a file of the page keeps to`);
}

// Rule 3: the formats' files include the shared types, not the dispatchers, which declare none of them.
const DISPATCHERS = ['membudget/formats/import.hpp', 'membudget/formats/export.hpp'];
const DISPATCHER_FILES = new Set(['engine/src/formats/import.cpp', 'engine/src/formats/export.cpp']);
for (const path of walk(join(root, 'engine/src/formats'), /\.(cpp|hpp|inc)$/)) {
  const file = relative(root, path);
  if (DISPATCHER_FILES.has(file)) continue;
  for (const [, name] of readFileSync(path, 'utf8').matchAll(/^\s*#\s*include\s*"([^"]+)"/gm))
    if (DISPATCHERS.includes(name))
      problems.push(`${file}: includes "${name}"; a format's file includes "membudget/formats/format_types.hpp" instead`);
}
for (const header of DISPATCHERS) {
  for (const [, type] of code(readFileSync(join(root, 'engine/include', header), 'utf8')).matchAll(
    /\bstruct\s+(ImportInput|Unmapped|ImportResult|ExportResult)\b/g,
  ))
    problems.push(`engine/include/${header}: declares struct ${type}, which belongs in membudget/formats/format_types.hpp`);
}

// The longest functions, as docs/build.md shows them.
const longest = all.sort((a, b) => b.lines - a.lines || a.where.localeCompare(b.where)).slice(0, 15);
const table = longest.map((f) => `| \`${f.name}\` | \`${f.where.replace(/:\d+$/, '')}\` | ${f.lines} |`).join('\n');
const block = [
  '<!-- function-length:begin (node scripts/check-house-rules.mjs --write) -->',
  `| function | file | lines |`,
  '|---|---|---|',
  table,
  '<!-- function-length:end -->',
].join('\n');
const docPath = join(root, 'docs/build.md');
const doc = readFileSync(docPath, 'utf8');
const pattern = /<!-- function-length:begin[^>]*-->[\s\S]*?<!-- function-length:end -->/;
if (!pattern.test(doc)) problems.push('docs/build.md: no function-length markers');
const current = doc.replace(pattern, block);
if (process.argv.includes('--write')) writeFileSync(docPath, current);
else if (current !== doc) problems.push('docs/build.md: the function-length table is stale (node scripts/check-house-rules.mjs --write)');

if (problems.length) {
  for (const p of problems) console.error(`house rules: ${p}`);
  process.exit(1);
}
console.log(
  `house rules: ${all.length} C++ functions, none over ${MAX_FUNCTION_LINES} lines; web/src within ${MAX_PAGE_LINES}; ` +
    'the formats include format_types.hpp, not the dispatchers',
);
