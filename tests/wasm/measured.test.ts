// One reader of the measured-file format: the page reads a file through the engine exactly as the CLI's
// compare-measured does, with the same messages for what it cannot read.
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadPlannerEngine, MembudgetError, type Engine } from '../../web/src/engine';
import { runCli } from '../support/cli';
import { fixture, PLANNER_WASM } from '../support/paths';

let tools: Engine;
beforeAll(async () => {
  tools = await loadPlannerEngine(readFileSync(PLANNER_WASM));
});

const sample = () => JSON.parse(JSON.stringify(fixture('measured-sample')));

function cliErrors(text: string): string[] {
  const run = runCli(['compare-measured', '-'], text);
  return run.status === 2
    ? run.stderr
        .trim()
        .split('\n')
        .map((l) => l.replace('membudget: error: ', ''))
    : [];
}

function pageErrors(text: string): string[] {
  try {
    const file = tools.readMeasuredFile(text);
    return file.configProblems.map((p) => p.message);
  } catch (error) {
    if (!(error instanceof MembudgetError)) throw error;
    return error.problems.map((p) => p.message);
  }
}

describe('the measured-file reader', () => {
  it('reads the sample as the CLI does: its lines, peak and configuration', () => {
    const text = JSON.stringify(sample());
    const file = tools.readMeasuredFile(text);
    const cli = JSON.parse(runCli(['compare-measured', '--json', '-'], text).stdout);
    for (const line of cli.lines.filter((l: { measured_bytes: number | null }) => l.measured_bytes !== null))
      expect(file.lines.get(line.id), line.id).toBe(line.measured_bytes);
    expect(cli.parameter_count).toBe(tools.evaluate(file.config).parameterCount);
  });

  it('refuses what the CLI refuses, with the same messages', () => {
    const variants: [string, (f: any) => void][] = [
      ['a fraction of a byte', (f) => (f.lines.parameters = 1.5)],
      ['a petabyte and more', (f) => (f.lines.gradients = 1e308)],
      ['a negative peak', (f) => (f.peak = { allocated_bytes: -1 })],
      ['a string of bytes', (f) => (f.lines.optimizer = '12')],
      ['another format', (f) => (f.format = 'membudget-measured/2')],
      ['a configuration key of the wrong type', (f) => (f.config.tp = 'eight')],
      ['an unknown configuration key', (f) => (f.config.tensor_parallel = 8)],
      ['phases that are not an array', (f) => (f.phases = {})],
    ];
    for (const [name, change] of variants) {
      const file = sample();
      change(file);
      const text = JSON.stringify(file);
      const cli = cliErrors(text);
      expect(cli.length, name).toBeGreaterThan(0);
      expect(pageErrors(text), name).toEqual(cli);
    }
    expect(pageErrors('{"format":')[0]).toContain('not JSON');
    expect(cliErrors('{"format":')[0]).toContain('not JSON');
  });
});
