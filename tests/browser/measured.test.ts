// The checklist's "measured" column in Chromium: the sample measured file (tests/fixtures/measured-sample.json)
// dropped or pasted onto the page, its configuration loaded, and every difference against what
// `membudget compare-measured --json` computes for the same file; typed values and bad input.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { cliLineBytes, runCli } from '../support/cli';
import { FIXTURES } from '../support/paths';
import { pageSession } from '../support/page';

const SAMPLE = resolve(FIXTURES, 'measured-sample.json');
const SAMPLE_TEXT = readFileSync(SAMPLE, 'utf8');
const GIB = 2 ** 30;

interface CompareLine {
  id: string;
  predicted_bytes: number | null;
  measured_bytes: number | null;
  difference_bytes: number | null;
  difference_percent: number | null;
}
interface CompareTotal {
  predicted: string;
  measured: string;
  difference_bytes: number;
  difference_percent: number | null;
}

const session = pageSession({ basePath: '/membudget/' });
const open = (query = ''): Promise<Page> => session.open(query);

function cliComparison(): { lines: CompareLine[]; totals: CompareTotal[] } {
  const run = runCli(['compare-measured', SAMPLE, '--json']);
  expect(run.status, run.stderr).toBe(0);
  return JSON.parse(run.stdout);
}

/** Line id (or "total") → the page's measured − predicted, as the cell carries it. */
async function pageDifferences(page: Page): Promise<Record<string, { bytes: number; percent: string; text: string; cls: string }>> {
  const cells = await page.$$eval('#ledger tr[data-line], #ledger tr[data-summary="total"]', (rows) =>
    rows.map((tr) => {
      const diff = tr.querySelector('.measured-diff') as HTMLElement | null;
      return [
        tr.getAttribute('data-line') ?? 'total',
        diff?.dataset.diffBytes ?? null,
        diff?.dataset.diffPercent ?? '',
        diff?.textContent ?? '',
        diff?.className ?? '',
      ] as const;
    }),
  );
  const out: Record<string, { bytes: number; percent: string; text: string; cls: string }> = {};
  for (const [id, bytes, percent, text, cls] of cells) if (bytes !== null) out[id] = { bytes: Number(bytes), percent, text, cls };
  return out;
}

async function ledgerBytes(page: Page): Promise<Record<string, number>> {
  const rows = await page.$$eval('#ledger tr[data-line]', (trs) =>
    trs.map((tr) => [tr.getAttribute('data-line'), tr.getAttribute('data-bytes')]),
  );
  return Object.fromEntries(rows.map(([id, bytes]) => [id, Number(bytes)]));
}

const expectedClass = (percent: number | null) =>
  percent === null ? 'diff-poor' : Math.abs(percent) < 5 ? 'diff-good' : Math.abs(percent) < 15 ? 'diff-fair' : 'diff-poor';

async function expectNoBadText(page: Page): Promise<void> {
  expect(await page.innerText('body')).not.toMatch(/\bNaN\b|\bInfinity\b|\bundefined\b/);
}

describe('the measured column', () => {
  it('takes a dropped measured file, offers its configuration, and shows measured − predicted as the CLI computes it', async () => {
    const page = await open('?model=chapter-70b');
    const dataTransfer = await page.evaluateHandle((text) => {
      const transfer = new DataTransfer();
      transfer.items.add(new File([text], 'measured.json', { type: 'application/json' }));
      return transfer;
    }, SAMPLE_TEXT);
    await page.dispatchEvent('#measured-json', 'drop', { dataTransfer });
    await page.waitForSelector('#measured-message[data-state="read"]');
    expect(await page.textContent('#measured-message')).toContain('Read 4 measured lines and the peak allocated');
    expect(await page.getAttribute('#measured', 'open')).not.toBeNull();
    // The page opens on the chapter's 70B example: the file's small model is another configuration.
    expect(await page.isVisible('#measured-config')).toBe(true);
    expect(await page.textContent('#measured-config')).toContain('hidden 8192 → 256');

    await page.click('#measured-load-config');
    await page.waitForFunction(() => document.getElementById('measured-config')?.hidden === true);
    const sample = JSON.parse(SAMPLE_TEXT);
    expect(await ledgerBytes(page)).toEqual(cliLineBytes(sample.config));

    const cli = cliComparison();
    const page_ = await pageDifferences(page);
    const compared = cli.lines.filter((l) => l.difference_bytes !== null);
    expect(compared.map((l) => l.id).sort()).toEqual(
      Object.keys(page_)
        .filter((id) => id !== 'total')
        .sort(),
    );
    for (const line of compared) {
      expect(page_[line.id].bytes, line.id).toBe(line.difference_bytes);
      expect(Number(page_[line.id].percent), line.id).toBeCloseTo(line.difference_percent!, 9);
      expect(page_[line.id].cls, line.id).toContain(expectedClass(line.difference_percent));
    }
    // The sample peaks in the optimizer step: the optimizer and activation lines are compared with their
    // forward/backward values, which the cell names.
    expect(cli.lines.find((l) => l.id === 'activations')!.difference_percent).toBeLessThan(-15);
    expect(await page.textContent('#ledger tr[data-line="activations"] .measured-ref')).toContain('during forward and backward');
    const total = cli.totals.find((t) => t.predicted === 'total_without_allowances' && t.measured === 'peak_allocated')!;
    expect(page_.total.bytes).toBe(total.difference_bytes);
    expect(page_.total.cls).toContain(expectedClass(total.difference_percent));
    // The allowances are not in the file: no difference, and nothing that is not a number.
    expect(page_.buffers).toBeUndefined();
    await expectNoBadText(page);
  });

  it('shows the difference of a typed value in the unit shown, and names the line of bad input', async () => {
    const sample = JSON.parse(SAMPLE_TEXT);
    const page = await open(
      '?' +
        Object.entries(sample.config)
          .map(([k, v]) => `${k}=${encodeURIComponent(String(v))}`)
          .join('&'),
    );
    await page.click('#measured summary');
    await page.fill('#measured-json', SAMPLE_TEXT); // pasted
    await page.click('#measured-apply');
    await page.waitForSelector('#ledger tr[data-line="parameters"] .measured-diff[data-diff-bytes]');
    expect(await page.isVisible('#measured-config')).toBe(false);

    await page.selectOption('#unit', 'gib');
    await page.waitForFunction(() => document.querySelector('#ledger th.measured')?.textContent?.includes('GiB'));
    // The file's values are kept in bytes and shown in GiB.
    const gradientsText = await page.inputValue('#measured-line-gradients');
    expect(Number(gradientsText) * GIB).toBeCloseTo(sample.lines.gradients, -1);

    await page.fill('#measured-line-parameters', '0.004');
    const predicted = cliLineBytes(sample.config).parameters;
    const typedBytes = Math.round(0.004 * GIB);
    await page.waitForFunction(
      (bytes) =>
        document.querySelector('#ledger tr[data-line="parameters"] .measured-diff')?.getAttribute('data-diff-bytes') === String(bytes),
      typedBytes - predicted,
    );
    const percent = ((typedBytes - predicted) / predicted) * 100;
    const text = await page.textContent('#ledger tr[data-line="parameters"] .measured-diff');
    expect(text).toBe(`+${((typedBytes - predicted) / GIB).toFixed(2)} GiB (+${percent.toFixed(1)}%)`);
    expect(await page.getAttribute('#ledger tr[data-line="parameters"] .measured-diff', 'class')).toContain(expectedClass(percent));

    for (const [typed, message] of [
      ['abc', 'Optimizer: “abc” is not a number of GiB'],
      ['-1', 'Optimizer: a measured value cannot be negative'],
      ['NaN', 'Optimizer: “NaN” is not a number of GiB'],
      ['1e999', 'Optimizer: 1e999 GiB is more bytes than can be counted exactly'],
    ]) {
      await page.fill('#measured-line-optimizer', typed);
      await page.waitForFunction(
        (m) => document.querySelector('#ledger tr[data-line="optimizer"] .measured-error')?.textContent?.includes(m),
        message,
      );
      expect(await page.textContent('#ledger tr[data-line="optimizer"] .measured-diff'), typed).toBe('');
    }
    const body = await page.innerText('#ledger');
    expect(body).not.toMatch(/\bInfinity\b|\bundefined\b/);
    expect(body.replace(/“NaN”/g, '')).not.toMatch(/\bNaN\b/);
    await page.fill('#measured-line-optimizer', '');
    await page.waitForFunction(() => document.querySelector('#ledger tr[data-line="optimizer"] .measured-error')?.textContent === '');

    // A file that is not a measured file: its first bad field, and the typed values stay.
    await page.fill('#measured-json', '{"format": "membudget-measured/0", "config": {}}');
    await page.click('#measured-apply');
    await page.waitForFunction(() =>
      document.querySelector('#measured-message')?.textContent?.includes('format must be "membudget-measured/1"'),
    );
    expect(await page.inputValue('#measured-line-parameters')).toBe('0.004');

    // Closing the panel takes the column away.
    await page.click('#measured summary');
    await page.waitForFunction(() => document.querySelector('#ledger td.measured') === null);
  });
});
