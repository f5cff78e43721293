// The README as a front door that does not go stale: its example is what the CLI prints for its command, its
// Debian package list is what scripts/ensure-deps.sh installs, its links lead to pages that exist, and it stays
// short (depth lives in docs/).
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli';
import { ROOT } from '../support/paths';

const readme = readFileSync(resolve(ROOT, 'README.md'), 'utf8');

describe('the README', () => {
  it('shows the CLI output of its example command, as the CLI prints it', () => {
    const command = /```sh\nbuild\/membudget ([^\n]+)\n```\n\n```\n([\s\S]*?)\n```/.exec(readme);
    expect(command).not.toBeNull();
    const args = command![1]!.split(/\s+/);
    const printed = runCli(args).stdout;
    expect(printed.startsWith(`${command![2]}\n`)).toBe(true);
  });

  it('lists the Debian packages scripts/ensure-deps.sh installs', () => {
    const script = readFileSync(resolve(ROOT, 'scripts/ensure-deps.sh'), 'utf8');
    const installed = /debian_packages=\(([^)]*)\)/.exec(script)![1]!.split(/\s+/).filter(Boolean).sort();
    const listed = /Debian packages with `apt-get`: `([^`]*)`/.exec(readme.replace(/\n/g, ' '))![1]!.split(/\s+/).filter(Boolean).sort();
    expect(listed).toEqual(installed);
  });

  it('links only to files that exist, and stays within 250 lines', () => {
    const targets = [...readme.matchAll(/\]\(([^)#]+)\)/g)].map((m) => m[1]!).filter((t) => !t.startsWith('http'));
    expect(targets.length).toBeGreaterThan(10);
    for (const target of targets) expect(existsSync(resolve(ROOT, target)), target).toBe(true);
    expect(readme.split('\n').length).toBeLessThanOrEqual(250);
    expect(readme).not.toMatch(/\bissue \d+/i);
  });

  it('has documentation pages whose links lead to files that exist', () => {
    for (const page of [
      'page',
      'cli',
      'methods',
      'chapter',
      'inference',
      'planner',
      'import',
      'presets',
      'accuracy',
      'limits',
      'build',
      'speed',
    ]) {
      const text = readFileSync(resolve(ROOT, 'docs', `${page}.md`), 'utf8');
      for (const [, target] of text.matchAll(/\]\(([^)#]+)\)/g))
        if (!target!.startsWith('http')) expect(existsSync(resolve(ROOT, 'docs', target!)), `docs/${page}.md → ${target}`).toBe(true);
    }
  });
});
