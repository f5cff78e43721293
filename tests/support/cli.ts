// The native CLI as the reference the wasm module and the page must agree with byte for byte.
import { spawnSync } from 'node:child_process';
import { CLI } from './paths';

export interface CliRun {
  status: number;
  stdout: string;
  stderr: string;
}

export function runCli(args: string[], input = ''): CliRun {
  const run = spawnSync(CLI, args, { input, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  if (run.error) throw run.error;
  return { status: run.status ?? -1, stdout: run.stdout, stderr: run.stderr };
}

/** Line id → bytes of `membudget eval` for a JSON configuration. */
export function cliLineBytes(config: object): Record<string, number> {
  const run = runCli(['eval', '-'], JSON.stringify(config));
  const result = JSON.parse(run.stdout) as { lines?: { id: string; bytes: number }[]; errors: unknown[] };
  if (!result.lines) throw new Error(`CLI refused ${JSON.stringify(config)}: ${run.stdout}`);
  return Object.fromEntries(result.lines.map((l) => [l.id, l.bytes]));
}

/** The same for a link's query string. */
export function cliResultForQuery(query: string): any {
  return JSON.parse(runCli(['--json', '--url', query]).stdout);
}
