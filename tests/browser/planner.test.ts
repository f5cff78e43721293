// The planner and the advice on the built page: the search runs in a Web Worker, agrees with
// `membudget plan --json`, can be cancelled, and a row or an advice loads into the checklist.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { cliResultForQuery, runCli } from '../support/cli';
import { pageSession } from '../support/page';

const session = pageSession({ basePath: '/' });
const open = (query: string): Promise<Page> => session.open(query);

const totalBytes = (page: Page) => page.$eval('tr[data-summary="total"]', (tr) => Number(tr.getAttribute('data-bytes')));

describe('the planner on the page', () => {
  const query = '?model=llama-3.1-70b&gpu=h100-80gb&tp=8&dp=8&microbatches=32&seq=8192';
  const cliArgs = ['plan', '--json', '--url', query.slice(1)];

  it('searches in a worker, reports what the CLI reports, and loads a row into the checklist', async () => {
    const page = await open(query);
    await page.click('#planner summary');
    expect(await page.inputValue('#plan-gpus')).toBe('64');
    expect(await page.inputValue('#plan-batch')).toBe('256');
    await page.click('#plan-run');
    await page.waitForFunction(() => document.querySelector('#plan-status')?.textContent?.includes('Pareto front'));
    expect(session.opened!.workers.some(({ worker }) => worker.url().includes('plan-worker'))).toBe(true);

    const cli = JSON.parse(runCli(cliArgs).stdout) as {
      fitting: number;
      evaluated: number;
      recommended: { index: number; reason: string };
      rows: { peak_bytes: number; pareto: boolean; tokens_per_second_per_gpu: number }[];
    };
    const status = await page.textContent('#plan-status');
    expect(status).toContain(`${cli.fitting.toLocaleString('en-US')} fit`);
    expect(status).toContain(`${cli.evaluated.toLocaleString('en-US')} evaluated`);
    // The recommended row first, with the CLI's reason; then the Pareto rows by peak memory, the CLI's in order.
    const best = cli.rows[cli.recommended.index]!;
    expect(await page.textContent('#plan-recommended')).toContain(cli.recommended.reason);
    expect(await page.getAttribute('#plan-table tbody tr:first-child', 'class')).toContain('recommended');
    const shown = await page.$$eval('#plan-table tbody tr', (rows) => rows.map((r) => Number(r.getAttribute('data-peak-bytes'))));
    expect(shown[0]).toBe(best.peak_bytes);
    const front = cli.rows
      .filter((r, i) => r.pareto && i !== cli.recommended.index)
      .map((r) => r.peak_bytes)
      .sort((a, b) => a - b);
    expect(shown.slice(1)).toEqual(front.slice(0, shown.length - 1));
    expect(shown.length).toBe(Math.min(front.length + 1, 200));
    const tokensColumn = async () =>
      page.$$eval('#plan-table tbody tr', (rows) =>
        rows.map((r) => Number(r.querySelector('td[data-col="tokens"]')?.textContent?.replace(/,/g, ''))),
      );
    expect((await tokensColumn())[0]).toBe(Math.round(best.tokens_per_second_per_gpu));
    // Sorted by tokens/s per GPU: the recommended row, then the others fastest first.
    await page.selectOption('#plan-sort', 'speed');
    const bySpeed = await tokensColumn();
    expect(bySpeed.slice(1)).toEqual([...bySpeed.slice(1)].sort((a, b) => b - a));
    expect(bySpeed.every((t) => t <= bySpeed[0]!)).toBe(true);
    await page.selectOption('#plan-sort', 'peak');

    // Sorting and filtering act on the same rows.
    await page.uncheck('#plan-pareto');
    await page.selectOption('#plan-ckpt', 'full');
    const full = await page.$$eval('#plan-table tbody tr td[data-col="ckpt"]', (cells) => cells.map((c) => c.textContent));
    expect(full.length).toBeGreaterThan(0);
    expect(new Set(full)).toEqual(new Set(['full']));

    // A row loads into the checklist: the ledger's total is the row's peak.
    const row = page.locator('#plan-table tbody tr').first();
    const peak = Number(await row.getAttribute('data-peak-bytes'));
    await row.click();
    await page.waitForFunction(
      (bytes) => document.querySelector('tr[data-summary="total"]')?.getAttribute('data-bytes') === String(bytes),
      peak,
    );
    expect(await totalBytes(page)).toBe(peak);
    const text = await page.textContent('body');
    expect(text).not.toMatch(/\bNaN\b|(?<!ZeRO-)Infinity|\bundefined\b/);
  });

  it('can be cancelled, and the page answers while it searches', async () => {
    const page = await open('?model=deepseek-v3&gpu=h100-80gb&tp=8&pp=16&dp=128&ep=8&microbatches=16&seq=8192');
    await page.click('#planner summary');
    await page.fill('#plan-gpus', '16384');
    await page.fill('#plan-batch', '4096');
    // The worker's start is waited for, not assumed: its event can arrive after a cancel that comes quickly.
    const started = page.waitForEvent('worker', (worker) => worker.url().includes('plan-worker'));
    await page.click('#plan-run');
    await started;
    // The main thread is free: a field change re-renders the ledger while the worker searches.
    await page.fill('#f-mb', '2');
    await page.click('#plan-cancel');
    await page.waitForFunction(() => document.querySelector('#plan-status')?.textContent === 'Cancelled.');
    expect(await page.isDisabled('#plan-run')).toBe(false);
    expect(await page.isDisabled('#plan-cancel')).toBe(true);
    // Cancelled for good: the worker is terminated, so nothing it computed can arrive later.
    const planWorkers = session.opened!.workers.filter(({ worker }) => worker.url().includes('plan-worker'));
    expect(planWorkers.length).toBeGreaterThan(0);
    await Promise.all(planWorkers.map(({ closed }) => closed));
    expect(await page.textContent('#plan-status')).toBe('Cancelled.');
  });

  it('gives the run on a token budget in the answer and in every row, as the CLI does', async () => {
    const budget = `${query}&train_tokens=15000000000000&gpu_hour_usd=2.5`;
    const page = await open(budget);
    const cli = cliResultForQuery(budget.slice(1)) as {
      run: {
        optimizer_steps: number;
        wall_clock_days: number;
        wall_clock_days_low: number;
        wall_clock_days_high: number;
        gpu_hours: number;
        gpu_hours_low: number;
        gpu_hours_high: number;
        cost_usd: number;
        cost_usd_low: number;
        cost_usd_high: number;
      };
    };
    const whole = (x: number): string => Math.round(x).toLocaleString('en-US');
    const tenth = (x: number): string => (Math.round(x * 10) / 10).toLocaleString('en-US', { minimumFractionDigits: 1 });
    await page.waitForFunction(() => !document.querySelector<HTMLElement>('#run-time')?.hidden);
    const line = (await page.textContent('#run-time'))!;
    expect(line).toContain(`15,000,000,000,000 tokens in ${cli.run.optimizer_steps.toLocaleString('en-US')} optimizer steps`);
    // Each figure with its band, as the JSON gives them.
    const r = cli.run;
    expect(line).toContain(`${whole(r.gpu_hours)} (${whole(r.gpu_hours_low)}–${whole(r.gpu_hours_high)}) GPU-hours`);
    expect(line).toContain(
      `: ${tenth(r.wall_clock_days)} (${tenth(r.wall_clock_days_low)}–${tenth(r.wall_clock_days_high)}) days on 64 GPUs`,
    );
    expect(runCli(['--url', budget.slice(1)]).stdout).toContain(line);
    expect(line).toContain(`$${whole(r.cost_usd)} (${whole(r.cost_usd_low)}–${whole(r.cost_usd_high)}) at $2.5 per GPU-hour`);

    await page.click('#planner summary');
    await page.click('#plan-run');
    await page.waitForFunction(() => document.querySelector('#plan-status')?.textContent?.includes('Pareto front'));
    const plan = JSON.parse(runCli(['plan', '--json', '--url', budget.slice(1)]).stdout) as {
      recommended: { index: number };
      rows: { gpu_hours: number; cost_usd: number }[];
    };
    const best = plan.rows[plan.recommended.index]!;
    const cell = (col: string) => page.textContent(`#plan-table tbody tr:first-child td[data-col="${col}"]`);
    expect(await cell('gpu-hours')).toBe(Math.round(best.gpu_hours).toLocaleString('en-US'));
    expect(await cell('cost')).toBe(Math.round(best.cost_usd).toLocaleString('en-US'));

    // Without a budget: no run line, no run columns.
    const plain = await open(query);
    await plain.waitForSelector('#step-time:not([hidden])');
    expect(await plain.$eval('#run-time', (e) => (e as HTMLElement).hidden)).toBe(true);
  });

  it('plans the same job on every GPU preset, as `membudget plan --which-gpu`, and a GPU’s row loads it', async () => {
    const page = await open(`${query}&train_tokens=15000000000000`);
    await page.click('#planner summary');
    await page.click('#plan-which-gpu');
    await page.waitForSelector('#plan-gpu-table tbody tr');
    const cli = JSON.parse(runCli(['plan', '--which-gpu', '--json', '--url', `${query.slice(1)}&train_tokens=15000000000000`]).stdout) as {
      which_gpu: {
        gpu: string;
        fitting: number;
        recommended: { tokens_per_second_per_gpu: number; gpu_hours: number; peak_bytes: number } | null;
      }[];
    };
    const rows = await page.$$eval('#plan-gpu-table tbody tr', (trs) =>
      trs.map((tr) => ({ gpu: tr.getAttribute('data-gpu'), cells: [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '') })),
    );
    expect(rows.map((r) => r.gpu)).toEqual(cli.which_gpu.map((g) => g.gpu));
    rows.forEach((row, i) => {
      const g = cli.which_gpu[i]!;
      expect(row.cells[2]).toBe(g.fitting.toLocaleString('en-US'));
      if (g.recommended === null) expect(row.cells.at(-1)).toContain('nothing fits');
      else {
        expect(row.cells[5]).toBe(Math.round(g.recommended.tokens_per_second_per_gpu).toLocaleString('en-US'));
        expect(row.cells[8]).toBe(Math.round(g.recommended.gpu_hours).toLocaleString('en-US'));
      }
    });
    // The H200's row loads its layout on the H200: the ledger's total is that row's peak.
    const h200 = cli.which_gpu.find((g) => g.gpu === 'h200')!.recommended!;
    await page.click('#plan-gpu-table tbody tr[data-gpu="h200"]');
    await page.waitForFunction(
      (bytes) => document.querySelector('tr[data-summary="total"]')?.getAttribute('data-bytes') === String(bytes),
      h200.peak_bytes,
    );
    await page.waitForFunction(() => new URL(location.href).searchParams.get('gpu') === 'h200');
  });

  it('refuses a bad request with the field named', async () => {
    const page = await open('');
    await page.click('#planner summary');
    await page.fill('#plan-batch', '0');
    await page.click('#plan-run');
    await page.waitForFunction(() => document.querySelector('#plan-status .error'));
    expect(await page.textContent('#plan-status')).toContain('global_batch must be a whole number');
  });
});

describe('the serving planner on the page (inference)', () => {
  // issue 30's: a 70B on 8 H100s; the plan the CLI gives for the same link and targets.
  const serving = 'model=llama-3.1-70b&gpu=h100-80gb&mode=inference&gpus=8&input_tokens=1024&output_tokens=512&seq=2048';
  interface CliServingPlan {
    reason: string;
    recommended: { index: number; reason: string } | null;
    rows: { query: string; peak_bytes: number; meets_targets: boolean; tp: number; dp: number; concurrency: number }[];
  }
  const cliPlan = (...flags: string[]) => JSON.parse(runCli(['plan', '--json', '--url', serving, ...flags]).stdout) as CliServingPlan;
  const rows = (page: Page) =>
    page.$$eval('#serving-table tbody tr', (trs) =>
      trs.map((tr) => ({ query: tr.getAttribute('data-query'), meets: tr.getAttribute('data-meets') === 'true' })),
    );
  /** Searches and waits for the answer whose status names `text`. */
  const search = async (page: Page, button: string, text: string) => {
    await page.click(button);
    await page.waitForFunction(
      (t) =>
        document.querySelector('#serving-planner')?.getAttribute('data-state') === 'done' &&
        document.querySelector('#serving-status')?.textContent?.includes(t),
      text,
    );
  };

  it('plans the 70B on 8 GPUs as the CLI does, a TPOT target changes which rows meet it, and a row loads its layout', async () => {
    const page = await open(`?${serving}`);
    await page.click('#planner summary');
    // In inference the section is the serving planner: the training search's controls are not shown.
    await page.waitForSelector('#serving-gpus');
    expect(await page.isHidden('#plan-training')).toBe(true);
    expect(await page.inputValue('#serving-gpus')).toBe('8');
    await search(page, '#serving-run', 'no latency target');
    expect(session.opened!.workers.some(({ worker }) => worker.url().includes('plan-worker'))).toBe(true);
    const free = cliPlan();
    expect(await page.textContent('#serving-recommended')).toContain(free.recommended!.reason);
    expect(await page.getAttribute('#serving-table tbody tr:first-child', 'class')).toContain('recommended');
    expect(await rows(page)).toEqual(free.rows.slice(0, 200).map((r) => ({ query: r.query, meets: true })));
    expect(await page.textContent('#serving-planner')).toContain('estimates');

    // A TPOT target of 30 ms: the rows that meet it are the CLI's, first; the others are marked missed.
    await page.fill('#serving-tpot', '30');
    await search(page, '#serving-run', 'TPOT ≤ 30 ms');
    const tight = cliPlan('--tpot-ms', '30');
    const shown = await rows(page);
    expect(shown).toEqual(tight.rows.slice(0, 200).map((r) => ({ query: r.query, meets: r.meets_targets })));
    expect(shown.some((r) => r.meets)).toBe(true);
    expect(shown.some((r) => !r.meets)).toBe(true);
    expect(await page.textContent('#serving-recommended')).toContain(tight.recommended!.reason);
    expect(tight.recommended!.reason).not.toBe(free.recommended!.reason);
    const marks = await page.$$eval('#serving-table tbody tr.missed td:last-child', (tds) => tds.map((td) => td.textContent));
    expect(new Set(marks)).toEqual(new Set(['missed']));

    // The second row loads: the link and the form state its TP, DP and requests (mb), the mode stays inference,
    // and the ledger's total is the row's peak; the plan stays, not marked stale.
    const row = tight.rows[1]!;
    await page.click('#serving-table tbody tr:nth-child(2)');
    await page.waitForFunction(
      (bytes) => document.querySelector('tr[data-summary="total"]')?.getAttribute('data-bytes') === String(bytes),
      row.peak_bytes,
    );
    // The link is written once edits pause: waited for, with the row's layout keys as its query states them.
    await page.waitForFunction((query) => {
      const linked = new URLSearchParams(query);
      const link = new URL(location.href).searchParams;
      return ['tp', 'pp', 'dp', 'mb', 'mode'].every((key) => link.get(key) === linked.get(key));
    }, row.query);
    expect(new URL(page.url()).searchParams.get('mode')).toBe('inference');
    expect(await page.inputValue('#f-tp')).toBe(String(row.tp));
    expect(await page.inputValue('#f-dp')).toBe(String(row.dp));
    expect(await page.inputValue('#f-mb')).toBe(String(row.concurrency));
    expect(await page.inputValue('#f-mode')).toBe('inference');
    expect(await page.isHidden('#serving-stale')).toBe(true);
    expect(await rows(page)).toEqual(shown);
    // From the keyboard: the first row's Load button.
    await page.focus('#serving-table tbody tr:first-child .plan-load');
    await page.keyboard.press('Enter');
    await page.waitForFunction(
      (bytes) => document.querySelector('tr[data-summary="total"]')?.getAttribute('data-bytes') === String(bytes),
      tight.rows[0]!.peak_bytes,
    );
    // Another model: the plan says it is for the configuration before.
    await page.selectOption('#f-model', 'llama-3.1-8b');
    await page.waitForSelector('#serving-stale:not([hidden])');
    const text = await page.textContent('body');
    expect(text).not.toMatch(/\bNaN\b|(?<!ZeRO-)Infinity|\bundefined\b/);
  });

  it('lists every GPU preset with its recommended layout, as `plan --which-gpu`, and a GPU’s row loads it', async () => {
    const page = await open(`?${serving}`);
    await page.click('#planner summary');
    await page.waitForSelector('#serving-gpus');
    await search(page, '#serving-which-gpu', 'GPU presets');
    const cli = JSON.parse(runCli(['plan', '--which-gpu', '--json', '--url', serving]).stdout) as {
      which_gpu: { gpu: string; recommended: { query: string; peak_bytes: number } | null }[];
    };
    const listed = await page.$$eval('#serving-gpus-table tbody tr', (trs) =>
      trs.map((tr) => ({ gpu: tr.getAttribute('data-gpu'), query: tr.getAttribute('data-query') })),
    );
    expect(listed).toEqual(cli.which_gpu.map((g) => ({ gpu: g.gpu, query: g.recommended?.query ?? null })));
    expect(await page.$$eval('#serving-table tbody tr', (trs) => trs.length)).toBe(0);
    const h200 = cli.which_gpu.find((g) => g.gpu === 'h200')!.recommended!;
    await page.click('#serving-gpus-table tbody tr[data-gpu="h200"]');
    await page.waitForFunction(
      (bytes) => document.querySelector('tr[data-summary="total"]')?.getAttribute('data-bytes') === String(bytes),
      h200.peak_bytes,
    );
    await page.waitForFunction(() => new URL(location.href).searchParams.get('gpu') === 'h200');
    expect(await page.isHidden('#serving-stale')).toBe(true);
  });

  it('refuses bad inputs by the field and its range, and a change of mode leaves no plan of the other', async () => {
    const page = await open(`?${serving}`);
    await page.click('#planner summary');
    await page.waitForSelector('#serving-gpus');
    await search(page, '#serving-run', 'no latency target');
    for (const [input, value, message] of [
      ['#serving-gpus', '0', 'gpus must be an integer from 1 to 16,384; got 0'],
      ['#serving-gpus', '2.5', 'gpus must be an integer from 1 to 16,384; got 2.5'],
      ['#serving-gpus', '20000', 'gpus must be an integer from 1 to 16,384; got 20000'],
      ['#serving-concurrency', '0', 'max_concurrency must be an integer from 1 to 65,536; got 0'],
      ['#serving-tpot', '-5', 'tpot_ms must be from 0 (no target) to 10,000,000 ms; got -5'],
    ] as const) {
      await page.fill('#serving-gpus', '8');
      await page.fill('#serving-concurrency', '1024');
      await page.fill('#serving-tpot', '');
      await page.fill(input, value);
      await page.click('#serving-run');
      await page.waitForFunction((m) => document.querySelector('#serving-status .error')?.textContent === m, message);
      // Not computed: no rows of an earlier search, the field marked.
      expect(await page.$$eval('#serving-table tbody tr', (trs) => trs.length)).toBe(0);
      expect(await page.getAttribute(input, 'aria-invalid')).not.toBeNull();
    }
    await page.fill('#serving-gpus', '8');
    await page.fill('#serving-tpot', '');
    await search(page, '#serving-run', 'no latency target');
    expect(await page.getAttribute('#serving-gpus', 'aria-invalid')).toBeNull();

    // Training: the serving plan goes, the training search comes back empty; and back again, nothing of either.
    await page.selectOption('#f-mode', 'training');
    await page.waitForSelector('#plan-serving', { state: 'hidden' });
    expect(await page.isVisible('#plan-training')).toBe(true);
    expect(await page.$$eval('#serving-table tr, #plan-table tr', (trs) => trs.length)).toBe(0);
    await page.click('#plan-run');
    await page.waitForFunction(() => document.querySelector('#plan-status')?.textContent?.includes('Pareto front'));
    await page.selectOption('#f-mode', 'inference');
    await page.waitForSelector('#plan-training', { state: 'hidden' });
    expect(await page.isVisible('#serving-planner')).toBe(true);
    expect(await page.$$eval('#serving-table tr, #plan-table tr, #plan-gpu-table tr', (trs) => trs.length)).toBe(0);
    expect(await page.textContent('#serving-status')).toBe('');
    expect(await page.textContent('#plan-status')).toBe('');
  });
});

describe('advice on the page', () => {
  it('lists the changes `membudget advise` lists, and applying one makes it fit', async () => {
    const query = 'model=llama-3.1-70b&gpu=h100-80gb&tp=4&dp=16&mb=2&ckpt=none&microbatches=8';
    const page = await open(`?${query}`);
    await page.waitForSelector('#advice li');
    const advice = JSON.parse(runCli(['advise', '--json', '--url', query]).stdout) as {
      change: string;
      total_bytes: number;
      verdict: string;
    }[];
    const items = await page.$$eval('#advice li', (lis) =>
      lis.map((li) => ({
        total: Number(li.getAttribute('data-total-bytes')),
        verdict: li.getAttribute('data-verdict'),
        change: li.querySelector('code')?.textContent,
      })),
    );
    expect(items).toEqual(advice.slice(0, 8).map((a) => ({ total: a.total_bytes, verdict: a.verdict, change: a.change })));
    expect(items[0].verdict).toBe('fits');
    // The verdict links to them: as many ways as the CLI lists changes that fit; the link leads to the first.
    const fitting = advice.filter((a) => a.verdict === 'fits').length;
    await page.waitForSelector('#ways:not([hidden])');
    expect(await page.textContent('#ways')).toBe(`${fitting} ways to make it fit ↓`);
    await page.click('#ways');
    await page.waitForFunction(() => document.activeElement?.classList.contains('advice-apply'));
    expect(new URL(page.url()).hash).toBe('');
    await page.click('#advice li:first-child .advice-apply');
    await page.waitForFunction(() => document.querySelector('#verdict')?.getAttribute('data-verdict') === 'fits');
    expect(await totalBytes(page)).toBe(advice[0].total_bytes);
    expect(await page.isHidden('#advice')).toBe(true);
    expect(await page.isHidden('#ways')).toBe(true);
  });

  it('computes the advice after a change, not inside it, and greys the list of the configuration before until then', async () => {
    const query = 'model=llama-3.1-70b&gpu=h100-80gb&tp=4&dp=16&mb=2&ckpt=none&microbatches=8';
    const page = await open(`?${query}`);
    await page.waitForSelector('#advice[data-state="ready"] li');
    await page.waitForSelector('body[data-ready="true"]');
    // The planner's module is loaded and the list shown: a change that still does not fit keeps the list, marked as
    // the configuration before's, through the change's own task and every microtask after it.
    const during = await page.evaluate(async () => {
      const input = document.getElementById('f-mb') as HTMLInputElement;
      input.value = '3';
      input.dispatchEvent(new Event('input'));
      const advice = document.getElementById('advice')!;
      const states: (string | boolean | null | undefined)[] = [advice.dataset.state, advice.querySelectorAll('li').length > 0];
      for (let i = 0; i < 10; i++) await Promise.resolve();
      states.push(advice.dataset.state, advice.getAttribute('aria-busy'));
      return states;
    });
    expect(during).toEqual(['updating', true, 'updating', 'true']);
    await page.waitForSelector('#advice[data-state="ready"]');
    const advice = JSON.parse(runCli(['advise', '--json', '--url', query.replace('mb=2', 'mb=3')]).stdout) as {
      change: string;
      total_bytes: number;
    }[];
    const items = await page.$$eval('#advice li', (lis) =>
      lis.map((li) => ({ total: Number(li.getAttribute('data-total-bytes')), change: li.querySelector('code')?.textContent })),
    );
    expect(items).toEqual(advice.slice(0, 8).map((a) => ({ total: a.total_bytes, change: a.change })));
    expect(await page.getAttribute('#advice', 'aria-busy')).toBeNull();
  });

  it('offers a change that keeps full training before LoRA and QLoRA, as `membudget advise` ranks them', async () => {
    const query = 'model=llama-3.1-70b&gpu=h100-80gb&method=membudget&tp=1&dp=8&zero=3&framework=torchtitan';
    const page = await open(`?${query}`);
    await page.waitForSelector('#advice li');
    const advice = JSON.parse(runCli(['advise', '--json', '--url', query]).stdout) as { change: string; keeps_task: boolean }[];
    expect(advice[0].keeps_task).toBe(true);
    const first = await page.$eval('#advice li:first-child', (li) => ({
      change: li.querySelector('code')?.textContent,
      taskChange: li.querySelector('.task-change') !== null,
    }));
    expect(first).toEqual({ change: advice[0].change, taskChange: false });
    const lora = await page.$$eval('#advice li', (lis) =>
      lis
        .filter((li) => li.querySelector('code')?.textContent === 'finetune = lora')
        .map((li) => li.querySelector('.task-change') !== null),
    );
    expect(lora).toEqual([true]);
  });
});
