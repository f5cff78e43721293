// What the scripts that write a table into the docs share (validation-table.mjs, throughput-table.mjs): the error
// statistics, how an error is written, and the table's place between two markers in a Markdown file.
import { readFileSync, writeFileSync } from 'node:fs';

/** @param {number[]} values */
export const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/** A signed error as a percentage to the tenth: +12.3%, −4.0%. @param {number} fraction */
export const pct = (fraction) => `${fraction >= 0 ? '+' : '−'}${Math.abs(fraction * 100).toFixed(1)}%`;

/**
 * Prints the table, or puts it between `<!-- name:start -->` and `<!-- name:end -->` in the file (--write), or exits
 * 1 when the file's table is not this one (--check: a ctest keeps the docs current).
 * @param {{ path: string; name: string; table: string; args: string[]; script: string }} options
 */
export function updateDocTable({ path, name, table, args, script }) {
  const write = args.includes('--write');
  const check = args.includes('--check');
  if (!write && !check) {
    console.log(table);
    return;
  }
  const start = `<!-- ${name}:start -->`;
  const end = `<!-- ${name}:end -->`;
  const doc = readFileSync(path, 'utf8');
  const from = doc.indexOf(start);
  const to = doc.indexOf(end);
  if (from < 0 || to < 0) throw new Error(`${path} has no ${name} markers`);
  const updated = `${doc.slice(0, from + start.length)}\n${table}\n${doc.slice(to)}`;
  if (write) writeFileSync(path, updated);
  else if (updated !== doc) {
    console.error(`${path} is not the table the engine gives now: run node ${script} --write`);
    process.exit(1);
  }
}
