// The built page in Debian's Chromium: the ledger against the native CLI, the form, links, hostile
// links, exports, the embed view, the single-file build, and no request to any other origin.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { cliLineBytes, cliResultForQuery, runCli } from '../support/cli';
import { evaluatesTo } from '../support/expression';
import { DIST, fixture, ROOT } from '../support/paths';
import { pageSession } from '../support/page';

const SHOTS = resolve(ROOT, 'test-results');
const BASE_PATH = '/internal/tools/membudget/';
// A wiki page on the same host that embeds the calculator.
const WIKI = `<!doctype html><title>Wiki</title><link rel="icon" href="data:,"><iframe id="embed" src="${BASE_PATH}?embed=1&pp=2" width="800" height="600"></iframe>`;

const session = pageSession({
  basePath: BASE_PATH,
  serve: { pages: { '/wiki/design-doc.html': WIKI } },
  page: { acceptDownloads: true, clipboard: true },
});

beforeAll(() => {
  mkdirSync(SHOTS, { recursive: true });
});

function open(query = '', options: { viewport?: { width: number; height: number } } = {}): Promise<Page> {
  return session.open(query, options);
}

async function ledgerBytes(page: Page): Promise<Record<string, number>> {
  const rows = await page.$$eval('#ledger tr[data-line]', (trs) =>
    trs.map((tr) => [tr.getAttribute('data-line'), tr.getAttribute('data-bytes')]),
  );
  return Object.fromEntries(rows.map(([id, bytes]) => [id, Number(bytes)]));
}

// The notice of a hostile link quotes what it ignored ("got \"NaN\""); everything else is the page's own text.
async function expectNoBadText(page: Page, selector = 'body'): Promise<void> {
  const text = await page.innerText(selector);
  expect(text).not.toMatch(/\bNaN\b|\bInfinity\b|\bundefined\b/);
}

async function waitForQuery(page: Page, fragment: string): Promise<void> {
  await page.waitForFunction((f) => location.search.includes(f), fragment);
}

describe('the calculator page', () => {
  it('opens the chapter’s 70B example, every data-bytes equal to the CLI’s eval', async () => {
    const page = await open('?model=chapter-70b');
    expect(await ledgerBytes(page)).toEqual(cliLineBytes({}));
    const example = fixture('chapter').checklists[0];
    expect(await ledgerBytes(page)).toEqual(example.expect.lines);
    expect(await page.getAttribute('#ledger tr[data-summary="total"]', 'data-bytes')).toBe(String(example.expect.total_bytes));
    expect(await page.getAttribute('#verdict', 'data-verdict')).toBe('fits');
    expect(await page.textContent('#ledger tr[data-line="parameters"] code')).toBe('2Ψ / (TP × PP)');
    await expectNoBadText(page);
    await page.screenshot({ path: resolve(SHOTS, 'page.png'), fullPage: true });
  });

  it('shows for every line a substituted formula that evaluates to the value beside it', async () => {
    const queries = [
      '',
      'method=megatron&tp=2&pp=2&cp=2&sp=true&dp=2',
      'model=mixtral-8x7b&mode=inference&method=membudget&tp=2&dp=1',
      'model=llama-3.1-70b&method=deepspeed&zero=3&dp=64&tp=1&offload=optimizer',
      'model=korthikanti-175b&method=korthikanti&pp=4&dp=8',
      'model=deepseek-v3&method=membudget&pp=8&ep=8&dp=64&zero=1&offload=optimizer',
    ];
    let checked = 0;
    for (const query of queries) {
      const page = await open(`?${query || 'model=chapter-70b'}`);
      const rows = await page.$$eval('#ledger tr[data-line]', (trs) =>
        trs.map((tr) => ({
          id: tr.getAttribute('data-line')!,
          bytes: Number(tr.getAttribute('data-bytes')),
          text: tr.querySelector('.substituted')!.textContent!,
        })),
      );
      expect(rows.length, query).toBeGreaterThan(4);
      for (const row of rows) {
        expect(row.text.startsWith('= '), `${query} ${row.id}`).toBe(true);
        expect(evaluatesTo(row.text.slice(2), row.bytes), `${query} ${row.id}: ${row.text} vs ${row.bytes}`).toBe(true);
        checked += 1;
      }
    }
    expect(checked).toBeGreaterThan(30);
  });

  it('recomputes on every edit of model, TP, PP and DP, and matches the CLI for the same link', async () => {
    const page = await open('?model=chapter-70b');
    await page.selectOption('#f-model', 'llama-3.1-70b');
    await page.fill('#f-tp', '4');
    await page.fill('#f-pp', '4');
    await page.fill('#f-dp', '16');
    await page.fill('#f-microbatches', '8');
    await waitForQuery(page, 'microbatches=8');
    const query = new URL(page.url()).search;
    expect(query).toBe('?model=llama-3.1-70b&tp=4&pp=4&dp=16&microbatches=8');
    const native = cliResultForQuery(query);
    expect(await ledgerBytes(page)).toEqual(Object.fromEntries(native.lines.map((l: { id: string; bytes: number }) => [l.id, l.bytes])));
    expect(await page.getAttribute('#verdict', 'data-verdict')).toBe(native.verdict);
    await expectNoBadText(page);
  });

  it('copies a link that reproduces the exact view in a new page', async () => {
    const page = await open('?model=chapter-70b');
    await page.selectOption('#f-model', 'chapter-405b');
    await page.fill('#f-pp', '4');
    await page.fill('#f-dp', '8');
    await page.selectOption('#unit', 'gib');
    await waitForQuery(page, 'unit=gib');
    await page.click('#copy-link');
    await page.waitForSelector('#toast.visible');
    const link = await page.evaluate(() => navigator.clipboard.readText());
    expect(link).toBe(page.url());
    const before = await ledgerBytes(page);
    const copy = await session.opened!.context.newPage();
    await copy.goto(link);
    await copy.waitForSelector('body[data-ready="true"]');
    expect(await ledgerBytes(copy)).toEqual(before);
    expect(await copy.inputValue('#f-pp')).toBe('4');
    expect(await copy.inputValue('#f-model')).toBe('chapter-405b');
    expect(await copy.textContent('#ledger thead')).toContain('Value (GiB)');
    expect(await copy.getAttribute('#verdict', 'data-verdict')).toBe('tight');
  });

  it('shows errors next to the field, computes nothing new for unreadable text without changing the link, and never NaN', async () => {
    const page = await open('?model=chapter-70b');
    const before = page.url();
    await page.fill('#f-tp', 'abc');
    await page.waitForSelector('#m-tp.error');
    expect(await page.textContent('#m-tp')).toContain('tp must be an integer from 1 to 1,024; got "abc"');
    expect(await page.getAttribute('#verdict', 'data-verdict')).toBe('error');
    // No numbers for it: the last valid result stays, greyed and marked out of date.
    expect(await page.getAttribute('#result', 'data-stale')).toBe('true');
    expect(page.url()).toBe(before);
    await page.fill('#f-tp', '0');
    await page.waitForSelector('#verdict.invalid');
    expect(await page.textContent('#m-tp')).toContain('tp must be an integer from 1 to 1,024; got 0');
    expect(await page.getAttribute('#result', 'data-stale')).toBe('true');
    expect(await page.textContent('#ledger caption')).toContain('Out of date');
    await page.fill('#f-tp', '128');
    await page.waitForFunction(() => document.querySelector('#m-tp')?.textContent?.includes('at most heads (64)'));
    await page.fill('#f-tp', '6');
    await page.waitForFunction(() => document.querySelector('#m-tp')?.textContent?.includes('tp must divide heads (64)'));
    await page.fill('#f-tp', '16');
    await page.waitForSelector('#m-tp.warning');
    expect(await page.textContent('#m-tp')).toContain('tp (16) exceeds kv_heads (8): each KV head is replicated');
    await expectNoBadText(page);
  });

  it('opens a hostile link with a notice naming each bad parameter, and runs none of it', async () => {
    const hostile = [
      'tp=%3Cscript%3Ewindow.__pwned%3D1%3C%2Fscript%3E',
      'model=javascript%3Aalert(1)',
      'x=%22%3E%3Cimg%20src%3Dx%20onerror%3Dwindow.__pwned%3D2%3E',
      '%3Cimg%20src%3Dy%20onerror%3Dwindow.__pwned%3D3%3E=1',
      'seq=1e999',
      'mb=NaN',
      'gpu_gb=Infinity',
      'dp=%ZZ',
    ].join('&');
    const page = await open(`?${hostile}&pp=2`);
    const notices = await page.$$eval('#notices li', (items) => items.map((li) => li.textContent ?? ''));
    for (const name of ['tp', 'model', '"x"', 'onerror', 'seq', 'mb', 'gpu_gb', 'dp=%ZZ']) expect(notices.join('\n')).toContain(name);
    expect(await page.isVisible('#notices')).toBe(true);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(await page.$$('#app img, #app script, #app iframe')).toHaveLength(0);
    // The rest of the link still applies; the bad keys keep their defaults.
    expect(await page.inputValue('#f-pp')).toBe('2');
    expect(await page.inputValue('#f-seq')).toBe('4096');
    expect(new URL(page.url()).search).toBe('?pp=2');
    await expectNoBadText(page, 'main');
  });

  it('opens a link of many unknown keys with the first 100 named and the rest counted, as the CLI', async () => {
    // Generated: 1,500 keys (a link of 150,000 overflowed the stack when its notices were spread into one call, and
    // the page blamed its wasm); the test server, like most, takes links of up to 16 KB.
    const keys = Array.from({ length: 1500 }, (_, i) => `k${i}=1`).join('&');
    const page = await open(`?${keys}&pp=2`);
    const notices = await page.$$eval('#notices li', (items) => items.map((li) => li.textContent ?? ''));
    expect(notices).toHaveLength(101);
    const cli = runCli(['--url', `${keys}&pp=2`])
      .stderr.trim()
      .split('\n');
    expect(cli).toHaveLength(101);
    expect(notices.slice(0, 100)).toEqual(cli.slice(0, 100).map((line) => line.replace('membudget: error: ', '')));
    expect(await page.getAttribute('#notices li.more', 'data-more')).toBe('1400');
    expect(cli[100]).toBe('membudget: error: … and 1,400 more, not shown');
    expect(notices[100]).toBe('… and 1,400 more, not shown');
    expect(await page.textContent('#notices strong')).toContain('Ignored 1500 parameters');
    expect(await page.inputValue('#f-pp')).toBe('2');
  });

  it('shows huge but well-formed numbers as range errors, not as numbers', async () => {
    const page = await open('?dp=1e300&headroom=5');
    await page.waitForSelector('#verdict.invalid');
    // A number no double holds exactly is refused as typed, where the link is read (a notice naming the field).
    expect(await page.textContent('#notices li[data-field="dp"]')).toContain('dp must be an integer from 1 to 1,048,576; got "1e300"');
    expect(await page.textContent('#m-headroom')).toContain('headroom must be a number from 0 to 0.99; got 5');
    await expectNoBadText(page);
  });

  it('exports Markdown and the CLI’s JSON', async () => {
    const page = await open('?model=llama-3.1-8b&tp=2&dp=4&gpu=h100-80gb');
    await page.click('#copy-markdown');
    await page.waitForSelector('#toast.visible');
    const markdown = await page.evaluate(() => navigator.clipboard.readText());
    expect(markdown).toContain('| Component | Formula | Value (GB) | Notes |');
    const native = JSON.parse(runCli(['--json', '--url', 'model=llama-3.1-8b&tp=2&dp=4&gpu=h100-80gb']).stdout);
    const parameters = native.lines.find((l: { id: string }) => l.id === 'parameters');
    expect(markdown).toContain(`| Parameters | ${parameters.formula} = ${parameters.substituted} | 8.03 |`);
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#download-json')]);
    const json = readFileSync((await download.path())!, 'utf8');
    expect(json + '\n').toBe(runCli(['--json', '--url', 'model=llama-3.1-8b&tp=2&dp=4&gpu=h100-80gb']).stdout);
  });

  it('names the framework in the caption and the Markdown, and shows the reserved peak the CLI computes', async () => {
    const query = 'model=llama-3.1-8b&method=membudget&framework=torchtitan&zero=3&tp=1&dp=8&gpu=h100-80gb';
    const page = await open(`?${query}`);
    const native = JSON.parse(runCli(['--json', '--url', query]).stdout);
    await page.waitForFunction(() => document.querySelector('#ledger caption')?.textContent?.includes('framework torchtitan'));
    expect(await ledgerBytes(page)).toEqual(Object.fromEntries(native.lines.map((l: { id: string; bytes: number }) => [l.id, l.bytes])));
    const reserved = page.locator('#ledger tr[data-summary="reserved"]');
    await expect.poll(() => reserved.getAttribute('data-bytes')).toBe(String(native.reserved_bytes));
    expect(await reserved.isVisible()).toBe(true);
    await page.click('#copy-markdown');
    await page.waitForSelector('#toast.visible');
    const markdown = await page.evaluate(() => navigator.clipboard.readText());
    expect(markdown).toContain('method membudget, framework torchtitan.');
    expect(markdown).toMatch(/\| Reserved \| caching allocator \| [0-9.]+ \|/);
    // The chapter's method models no allocator: the row is hidden and the caption names no framework.
    await page.selectOption('#f-method', 'chapter');
    await page.waitForFunction(() => !document.querySelector('#ledger caption')?.textContent?.includes('framework'));
    expect(await reserved.isVisible()).toBe(false);
  });

  it('shows every stage, the tensor sub-ledger and the methods side by side, as the CLI computes them', async () => {
    const query = '?model=llama-3.1-70b&pp=4&dp=8&sp=true&ckpt=selective&microbatches=16';
    const page = await open(query);
    const native = cliResultForQuery(query);
    const stages = await page.$$eval('#stages rect[data-stage]', (rects) => rects.map((r) => Number(r.getAttribute('data-bytes'))));
    expect(stages).toEqual(native.stages.map((s: { total_bytes: number }) => s.total_bytes));
    expect(await page.getAttribute('#stages rect.peak', 'data-stage')).toBe(String(native.peak_stage));
    await page.click('#tensors summary');
    await page.waitForSelector('#tensors tr[data-tensor]');
    const tensors = await page.$$eval('#tensors tr[data-tensor]', (rows) => rows.map((r) => Number(r.getAttribute('data-bytes'))));
    expect(tensors).toEqual(native.tensors.map((t: { bytes: number }) => t.bytes));
    await page.click('#compare summary');
    await page.waitForSelector('#compare td[data-method]');
    const cells = await page.$$eval('#compare td[data-method]', (tds) =>
      tds.map((td) => [td.getAttribute('data-method'), td.getAttribute('data-line'), Number(td.getAttribute('data-bytes'))]),
    );
    const compared = JSON.parse(runCli(['compare', '--json', '--url', query]).stdout);
    const expected = compared.methods.flatMap((m: { method: string; lines: { id: string; bytes: number }[] }) =>
      m.lines.map((l) => [m.method, l.id, l.bytes]),
    );
    expect([...cells].sort()).toEqual([...expected].sort());
    expect(await page.textContent('#compare .reasons')).toContain('18 vs 16 bytes per parameter');
    await expectNoBadText(page);
    await page.screenshot({ path: resolve(SHOTS, 'compare.png'), fullPage: true });
    // Open, the view follows each change (its module is loaded by now): DP 8 → 16 halves ZeRO's shards.
    await page.fill('#f-dp', '16');
    const zeroOptimizer = JSON.parse(runCli(['compare', '--json', '--url', query.replace('dp=8', 'dp=16')]).stdout)
      .methods.find((m: { method: string }) => m.method === 'zero')
      .lines.find((l: { id: string }) => l.id === 'optimizer').bytes;
    await page.waitForSelector(`#compare td[data-method="zero"][data-line="optimizer"][data-bytes="${zeroOptimizer}"]`);
  });

  it('imports a pasted config.json and computes what the CLI computes with --hf-config', async () => {
    const qwen = fixture('hf-configs').cases.find((c: { name: string }) => c.name === 'Qwen2-7B');
    const page = await open('?tp=4&dp=8');
    await page.click('.importer summary');
    await page.fill('#import-text', JSON.stringify(qwen.config));
    await page.click('#import-apply');
    await page.waitForFunction(() => location.search.includes('model=custom'));
    expect(await page.inputValue('#f-kv_heads')).toBe('4');
    const path = resolve(SHOTS, 'qwen2-config.json');
    writeFileSync(path, JSON.stringify(qwen.config));
    const native = JSON.parse(runCli(['--json', '--hf-config', path, '--tp', '4', '--dp', '8']).stdout);
    expect(await ledgerBytes(page)).toEqual(Object.fromEntries(native.lines.map((l: { id: string; bytes: number }) => [l.id, l.bytes])));
    await page.fill('#import-text', '{"hidden_size": "big"}');
    await page.click('#import-apply');
    await page.waitForSelector('#import-message.error');
    expect(await page.textContent('#import-message')).toContain('config.json has no');
    await expectNoBadText(page);
  });

  it('a launch file sets what it says: importing A then B gives what B alone gives, the GPU kept', async () => {
    const dir = resolve(ROOT, 'tests/fixtures/import');
    const first = readFileSync(resolve(dir, 'torchtune/llama3_1_8B_lora.yaml'), 'utf8');
    const second = readFileSync(resolve(dir, 'vllm/parallelism_scaling.sh'), 'utf8');
    const importFile = async (page: Page, text: string) => {
      await page.fill('#import-text', text);
      await page.click('#import-apply');
      await page.waitForSelector('#import-message[data-state="imported"]');
    };
    const chained = await open('?gpu=h200&method=membudget');
    await chained.click('.importer summary');
    await importFile(chained, first);
    await chained.waitForFunction(() => location.search.includes('finetune=lora'));
    await importFile(chained, second);
    await chained.waitForFunction(() => location.search.includes('mode=inference') && !location.search.includes('finetune'));
    const alone = await open('?gpu=h200&method=membudget');
    await alone.click('.importer summary');
    await importFile(alone, second);
    await alone.waitForFunction(() => location.search.includes('mode=inference'));
    expect(new URL(chained.url()).search).toBe(new URL(alone.url()).search);
    expect(new URL(alone.url()).search).toContain('gpu=h200');
  });

  it('what the file does not say is asked for at the field and in the answer, and the report lists what changed', async () => {
    const file = resolve(ROOT, 'tests/fixtures/import/megatron/train_gpt3_175b_distributed.sh');
    const native = JSON.parse(runCli(['import', file]).stdout) as {
      config: { name: string };
      assumed: { field: string; message: string }[];
    };
    const page = await open('?model=llama-3.1-70b&tp=8&dp=32&gpu=h100-80gb');
    await page.click('.importer summary');
    await page.fill('#import-text', readFileSync(file, 'utf8'));
    await page.click('#import-apply');
    await page.waitForSelector('#import-message[data-state="imported"]');
    // The engine's list, as the CLI gives it: each at its field, highlighted, and in the sticky answer.
    const listed = await page.$$eval('#import-assumed li', (items) => items.map((li) => li.textContent!));
    expect(listed.map((t) => t.split(' = ')[0])).toEqual(native.assumed.map((a) => a.field));
    expect(native.assumed.map((a) => a.field)).toContain('dp');
    await page.waitForSelector('#assumed:not([hidden])');
    expect(await page.textContent('#assumed')).toContain('Computed with assumed values');
    for (const a of native.assumed) {
      expect(await page.getAttribute(`.field[data-field="${a.field}"]`, 'class')).toContain('needs-input');
      expect(await page.textContent(`#m-${a.field}`)).toContain(a.message);
    }
    // The preset the script's architecture is (Korthikanti et al.'s 175B GPT-3, its vocabulary of 51,200), named as the CLI names it.
    expect(native.config.name).toContain('175B GPT-3');
    expect(await page.textContent('#summary')).toContain(native.config.name);
    // What changed against the 70B page, not the file's settings one per line.
    const changed = await page.$$eval('#import-changed li', (items) => items.map((li) => li.textContent!));
    expect(changed.some((c) => c.startsWith('pp: 1 → 16'))).toBe(true);
    expect(changed.some((c) => c.startsWith('tp:'))).toBe(false); // 8 before and after
    // The link in the answer leads to the field; setting it answers it.
    await page.click('#assumed a[data-field="dp"]');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('f-dp');
    await page.fill('#f-dp', '8');
    await page.waitForFunction(() => !document.querySelector('.field[data-field="dp"]')!.classList.contains('needs-input'));
    expect(await page.$('#assumed a[data-field="dp"]')).toBeNull();
  });

  it('an import leaves nothing of the model before it, keeps the imported name, and offers the TP values the model allows', async () => {
    const cases = fixture('hf-configs').cases as { name: string; config: Record<string, unknown> }[];
    const deepseek = cases.find((c) => c.name.startsWith('DeepSeek-V3'))!.config;
    const mixtral = { ...cases.find((c) => c.name.startsWith('Mixtral'))!.config, _name_or_path: 'mistralai/Mixtral-8x7B-v0.1' };
    delete (mixtral as Record<string, unknown>).num_experts_per_tok;
    const importText = async (page: Page, config: unknown) => {
      await page.fill('#import-text', JSON.stringify(config));
      await page.click('#import-apply');
      await page.waitForSelector('#import-message[data-state="imported"], #import-message[data-state="error"]');
    };
    // DeepSeek-V3 then Mixtral (without num_experts_per_tok) against Mixtral alone.
    const chained = await open('?tp=1&dp=8');
    await chained.click('.importer summary');
    await importText(chained, deepseek);
    await chained.waitForFunction(() => location.search.includes('kv_lora_rank'));
    await importText(chained, mixtral);
    await chained.waitForFunction(() => !location.search.includes('kv_lora_rank'));
    const chainedQuery = new URL(chained.url()).search;
    const alone = await open('?tp=1&dp=8');
    await alone.click('.importer summary');
    await importText(alone, mixtral);
    await alone.waitForFunction(() => location.search.includes('model=custom'));
    expect(chainedQuery).toBe(new URL(alone.url()).search);
    expect(chainedQuery).toContain('name=mistralai%2FMixtral-8x7B-v0.1');
    expect(await alone.inputValue('#f-name')).toBe('mistralai/Mixtral-8x7B-v0.1');
    await alone.click('#copy-markdown');
    await alone.waitForSelector('#toast.visible');
    expect(await alone.evaluate(() => navigator.clipboard.readText())).toContain('Model mistralai/Mixtral-8x7B-v0.1');
    // GPT-2 (12 heads) under TP 8: the error names the TP values it allows and the page offers them.
    const gpt2 = cases.find((c) => c.name.startsWith('GPT-2'))!.config;
    const page = await open('?tp=8&dp=8');
    await page.click('.importer summary');
    await importText(page, gpt2);
    await page.waitForSelector('#verdict[data-verdict="error"], #verdict.invalid');
    expect(await page.textContent('#m-tp')).toContain('this model allows tp = 1, 2, 3, 4, 6, 12');
    const offered = await page.$$eval('#m-tp .offer-value', (buttons) => buttons.map((b) => b.getAttribute('data-value')));
    expect(offered).toEqual(['1', '2', '3', '4', '6', '12']);
    await page.click('#m-tp .offer-value[data-value="4"]');
    await page.waitForSelector('#verdict[data-verdict]:not(.invalid)');
    expect(await page.inputValue('#f-tp')).toBe('4');
    await page.waitForFunction(() => location.search.includes('tp=4'));
  });

  it('imports a torchtitan TOML as the CLI does, lists what it could not map, and copies the layout as Megatron-LM flags', async () => {
    const file = resolve(ROOT, 'tests/fixtures/import/torchtitan/llama3_70b.toml');
    const native = JSON.parse(runCli(['import', file]).stdout);
    const page = await open('?gpu=h100-80gb');
    await page.click('.importer summary');
    await page.fill('#import-text', readFileSync(file, 'utf8'));
    await page.click('#import-apply');
    await page.waitForSelector('#import-message[data-state="imported"][data-format="torchtitan"]');
    const set = await page.$$eval('#import-set li', (items) => items.map((li) => li.textContent));
    expect(set).toEqual(Object.entries(native.config).map(([k, v]) => `${k} = ${String(v)}`));
    const unmapped = await page.$$eval('#import-unmapped li', (items) => items.map((li) => li.textContent));
    expect(unmapped.length).toBe(native.unmapped.length);
    // The ledger is the CLI's for the imported file over the page's GPU.
    const query = new URL(page.url()).search.slice(1);
    await page.waitForFunction(() => location.search.includes('framework=torchtitan'));
    const cli = JSON.parse(runCli(['--json', '--import', file, '--gpu', 'h100-80gb']).stdout);
    expect(await ledgerBytes(page)).toEqual(Object.fromEntries(cli.lines.map((l: { id: string; bytes: number }) => [l.id, l.bytes])));
    // Copy as: the CLI's export of the same configuration.
    await page.selectOption('#copy-as-format', 'megatron');
    await page.click('#copy-as');
    await page.waitForSelector('#exported[data-format="megatron"]');
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    const link = new URL(page.url()).search.slice(1) || query;
    expect(copied).toBe(runCli(['export', '--format', 'megatron', '--url', link]).stdout);
    expect(copied).toContain('--tensor-model-parallel-size 8');
  });

  it('lists the first 100 entries of a long report and counts the rest, applying the whole import', async () => {
    // Generated: 2,000 flags membudget does not model (150,000 overflowed the stack when spread into one call).
    const script = `torchrun pretrain_gpt.py --num-layers 4 ${Array.from({ length: 2000 }, (_, i) => `--unknown-${i} ${i}`).join(' ')}\n`;
    const native = JSON.parse(runCli(['import', '-', '--format', 'megatron'], script).stdout);
    const page = await open('?tp=1&dp=8');
    await page.click('.importer summary');
    await page.fill('#import-text', script);
    await page.click('#import-apply');
    await page.waitForSelector('#import-message[data-state="imported"][data-format="megatron"]');
    const items = await page.$$eval('#import-unmapped li', (lis) => lis.map((li) => li.textContent));
    expect(items).toHaveLength(101);
    expect(items.slice(0, 100)).toEqual(
      native.unmapped
        .slice(0, 100)
        .map((u: { key: string; value: string; reason: string }) => `${u.key}${u.value ? ` = ${u.value}` : ''}: ${u.reason}`),
    );
    const more = native.unmapped.length - 100;
    expect(await page.getAttribute('#import-unmapped li.more', 'data-more')).toBe(String(more));
    expect(items[100]).toContain(`${more.toLocaleString('en-US')} more`);
    await waitForQuery(page, 'layers=4');
  });

  it('refuses a whole import when one value is out of range, as the CLI does, and keeps the configuration', async () => {
    const yaml = 'model:\n  _component_: torchtune.models.llama3_1.llama3_1_8b\nbatch_size: -1:30\ncompile: on\n';
    const path = resolve(ROOT, 'build/membudget-out-of-range.yaml');
    writeFileSync(path, yaml);
    const cli = runCli(['import', path]);
    expect(cli.status).toBe(2);
    const page = await open('?tp=2&dp=4&pp=2');
    const before = new URL(page.url()).search;
    await page.click('.importer summary');
    await page.fill('#import-text', yaml);
    await page.click('#import-apply');
    await page.waitForSelector('#import-message[data-state="error"]');
    expect(await page.textContent('#import-message')).toBe(cli.stderr.trim().replace('membudget: error: ', ''));
    expect(new URL(page.url()).search).toBe(before);
    expect(await page.inputValue('#f-pp')).toBe('2');
  });

  it('refuses a config.json over 16 MiB before reading it, and imports in the worker, off the main thread', async () => {
    const page = await open('?tp=1&dp=8');
    await page.click('.importer summary');
    // The file is made in the page: its text (or that many spaces) crosses to the browser as a few bytes, not 16 MiB.
    const drop = async (content: { text: string } | { spaces: number }) => {
      const transfer = await page.evaluateHandle((c) => {
        const t = new DataTransfer();
        t.items.add(new File(['text' in c ? c.text : ' '.repeat(c.spaces)], 'config.json', { type: 'application/json' }));
        return t;
      }, content);
      await page.dispatchEvent('#import-text', 'drop', { dataTransfer: transfer });
    };
    await drop({ spaces: 16 * 1024 * 1024 + 1 });
    await page.waitForSelector('#import-message[data-state="error"]');
    expect(await page.textContent('#import-message')).toContain('config.json is larger than 16 MiB');
    expect(await page.inputValue('#import-text')).toBe(''); // never read into the page
    const llama = fixture('hf-configs').cases.find((c: { name: string }) => c.name === 'Llama-3.1-8B').config;
    const before = session.opened!.workers.length;
    await drop({ text: JSON.stringify(llama) });
    await page.waitForSelector('#import-message[data-state="imported"]');
    expect(session.opened!.workers.length).toBeGreaterThan(before);
    expect(session.opened!.workers.at(-1)!.worker.url()).toContain('plan-worker');
  });

  it('switches the chapter’s example to inference: the method becomes membudget, with a note', async () => {
    const page = await open('?model=chapter-70b');
    await page.selectOption('#f-mode', 'inference');
    await page.waitForSelector('#ledger tr[data-line="kv_cache"]');
    expect(await page.inputValue('#f-method')).toBe('membudget');
    expect(await page.textContent('#notices')).toContain('mode = inference selects method membudget');
    expect(await page.getAttribute('#verdict', 'data-verdict')).toMatch(/fits|tight|does_not_fit/);
  });

  it('plans inference: the KV cache line, and how many sequences fit', async () => {
    const page = await open('?model=llama-3.1-8b&tp=1&dp=1&mb=8&gpu=h100-80gb');
    await page.selectOption('#f-mode', 'inference');
    await page.waitForSelector('#ledger tr[data-line="kv_cache"]');
    await waitForQuery(page, 'mode=inference');
    const query = new URL(page.url()).search;
    const native = cliResultForQuery(query);
    expect(await ledgerBytes(page)).toEqual(Object.fromEntries(native.lines.map((l: { id: string; bytes: number }) => [l.id, l.bytes])));
    expect(await page.textContent('#phases')).toContain(`up to ${native.max_sequences.toLocaleString('en-US')} concurrent sequences`);
    await page.selectOption('#f-method', 'megatron');
    await page.waitForSelector('#verdict.invalid');
    expect(await page.textContent('#m-method')).toContain('method must be membudget in inference mode');
    await expectNoBadText(page);
  });

  it('has a compact embed view with a link to the full calculator', async () => {
    const page = await open('?embed=1&tp=4', { viewport: { width: 760, height: 560 } });
    expect(await page.isVisible('#config-form')).toBe(false);
    expect(await page.isVisible('#ledger')).toBe(true);
    expect(await page.isVisible('#bar svg')).toBe(true);
    const href = await page.getAttribute('#open-full', 'href');
    expect(href).toBe(`${BASE_PATH}?tp=4`);
    expect(await ledgerBytes(page)).toEqual(cliLineBytes({ tp: 4 }));
    await page.screenshot({ path: resolve(SHOTS, 'embed.png'), fullPage: true });
  });

  it('works inside an iframe of another page, as in a wiki', async () => {
    const page = await open('?model=chapter-70b');
    await page.goto(`${session.server.origin}/wiki/design-doc.html`);
    const frame = page.frameLocator('#embed');
    await frame.locator('body[data-ready="true"]').waitFor();
    expect(await frame.locator('#ledger tr[data-line]').count()).toBe(6);
  });
});

describe('the single-file build', () => {
  it('opens from disk with the wasm inlined and computes the same ledger', async () => {
    const file = resolve(DIST, 'membudget.html');
    const page = await session.open(`${pathToFileURL(file).href}?pp=2&mb=2`, { allowedOrigins: ['file:'], clipboard: false });
    expect(await ledgerBytes(page)).toEqual(cliLineBytes({ pp: 2, mb: 2 }));
  });

  it('plans serving without a worker, as the CLI does', async () => {
    const query = 'model=llama-3.1-70b&gpu=h100-80gb&mode=inference&gpus=8&input_tokens=1024&output_tokens=512&seq=2048';
    const file = resolve(DIST, 'membudget.html');
    const page = await session.open(`${pathToFileURL(file).href}?${query}`, { allowedOrigins: ['file:'], clipboard: false });
    await page.click('#planner summary');
    await page.fill('#serving-tpot', '50');
    await page.click('#serving-run');
    await page.waitForSelector('#serving-planner[data-state="done"]');
    expect(session.opened!.workers).toEqual([]);
    const cli = JSON.parse(runCli(['plan', '--json', '--url', query, '--tpot-ms', '50']).stdout) as {
      reason: string;
      rows: { query: string }[];
    };
    expect(await page.textContent('#serving-recommended')).toContain(cli.reason);
    expect(await page.getAttribute('#serving-table tbody tr:first-child', 'data-query')).toBe(cli.rows[0]!.query);
  });
});
