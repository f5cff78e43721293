// What the scripts that write files from the engine share (field-table.mjs, preset-table.mjs, record-types.mjs): the
// mode and the CLI from their command line, a document's block between its markers, and writing each file or
// checking that it still says what the engine says.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

export const root = new URL('..', import.meta.url).pathname;

/**
 * `--write|--check [path/to/membudget]`; anything else prints the usage and exits 2.
 * @param {string} script the script's file name, for the usage
 */
export function generatorArgs(script) {
  const mode = process.argv[2];
  if (mode !== '--write' && mode !== '--check') {
    console.error(`usage: node scripts/${script} --write|--check [path/to/membudget]`);
    process.exit(2);
  }
  return { write: mode === '--write', cli: process.argv[3] ?? join(root, 'build/membudget') };
}

/** A file's text, or '' where there is none yet. @param {string} path */
export function readOrEmpty(path) {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

/**
 * A document with the block between its `<!-- name:begin … -->` and `<!-- name:end -->` markers replaced; exits 1
 * when it has no such markers.
 * @param {string} path @param {string} name @param {string} block
 */
export function withBlock(path, name, block) {
  const doc = readFileSync(path, 'utf8');
  const pattern = new RegExp(`<!-- ${name}:begin[^>]*-->[\\s\\S]*?<!-- ${name}:end -->`);
  if (!pattern.test(doc)) {
    console.error(`${relative(root, path)} has no ${name} markers`);
    process.exit(1);
  }
  return doc.replace(pattern, block);
}

/**
 * Writes each file, or checks that each holds its text: a stale one is named with what it should be and the command
 * that rewrites it, and the check exits 1.
 * @param {boolean} write @param {string} script @param {{ path: string; text: string; what: string }[]} files
 * @param {string} done what the files hold, for the report
 */
export function writeOrCheck(write, script, files, done) {
  const names = files.map((f) => relative(root, f.path)).join(', ');
  if (write) {
    for (const f of files) {
      mkdirSync(dirname(f.path), { recursive: true });
      writeFileSync(f.path, f.text);
    }
    console.log(`${names}: ${done} written`);
    return;
  }
  for (const f of files)
    if (readOrEmpty(f.path) !== f.text) {
      console.error(`${relative(root, f.path)} is not ${f.what} (node scripts/${script} --write build/membudget)`);
      process.exit(1);
    }
  console.log(`${names} hold ${done}`);
}
