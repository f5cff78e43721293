// The page at a glance (issue 17), at a laptop's 1366 × 768, a phone's 390 × 844 and the README's 820 × 640
// embed: the answer in view while editing, the essentials first, numbers typed as people type them, a
// not-computed state for bad input, units everywhere, no page-wide horizontal scroll on a phone, an embed that
// fits its frame, the planner one click away, and axe-core finding no serious or critical violation.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { cliResultForQuery, runCli } from '../support/cli';
import { ROOT } from '../support/paths';
import { pageSession } from '../support/page';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const SHOTS = resolve(ROOT, 'docs');
const WIDE = { width: 1366, height: 768 };
const PHONE = { width: 390, height: 844 };
const EMBED = { width: 820, height: 640 };

const session = pageSession({ basePath: '/', page: { viewport: WIDE, clipboard: true } });

function open(query: string, viewport = WIDE): Promise<Page> {
  return session.open(query, { viewport });
}

/** The element's box lies inside the viewport. */
async function inView(page: Page, selector: string): Promise<boolean> {
  return page.$eval(selector, (e) => {
    const r = e.getBoundingClientRect();
    return r.top >= 0 && r.bottom <= window.innerHeight && r.height > 0;
  });
}

/** axe-core's serious and critical violations (`all`: of any impact), each as "rule: target". */
async function axe(page: Page, context = 'body', all = false): Promise<string[]> {
  // Evaluated through the devtools protocol: the page's policy admits no inline script, and needs none.
  if (!(await page.evaluate(() => 'axe' in globalThis))) await page.evaluate(AXE);
  const results = await page.evaluate(async (ctx) => {
    const axeApi = (
      globalThis as unknown as {
        axe: { run: (c: string, o: object) => Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }> };
      }
    ).axe;
    return axeApi.run(ctx, { resultTypes: ['violations'] });
  }, context);
  return results.violations
    .filter((v) => all || v.impact === 'serious' || v.impact === 'critical')
    .flatMap((v) => v.nodes.map((n) => `${v.id}: ${n.target.join(' ')}`));
}

describe('the answer at a glance', () => {
  for (const [name, viewport] of [
    ['laptop', WIDE],
    ['phone', PHONE],
  ] as const) {
    it(`keeps the verdict and its summary in view while a field far down is edited (${name})`, async () => {
      const page = await open('?model=llama-3.1-70b&tp=8&dp=32&gpu=h100-80gb', viewport);
      expect(await page.textContent('#summary')).toBe(
        'Llama-3.1 70B · megatron · TP 8 × PP 1 × DP 32 = 256 GPUs · NVIDIA H100 80GB HBM3 · training',
      );
      await page.click('#group-hardware summary');
      await page.fill('#f-headroom', '0.2');
      await page.waitForFunction(() => location.search.includes('headroom=0.2'));
      expect(await inView(page, '#f-headroom')).toBe(true);
      expect(await inView(page, '#verdict')).toBe(true);
      expect(await inView(page, '#summary')).toBe(true);
      expect(await page.getAttribute('#verdict', 'data-verdict')).toBe('fits');
      // Nothing wider than the screen makes the page scroll sideways (tables scroll in their own box).
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(viewport.width);
      await page.screenshot({ path: resolve(SHOTS, `screenshot-${name}.png`) });
    });
  }

  it('puts the essentials first, TP within 10 Tab presses, hides what does not apply, and shows derived values as placeholders', async () => {
    const page = await open('?model=llama-3.1-8b&tp=1&dp=8');
    let presses = 0;
    while (presses < 10 && (await page.evaluate(() => document.activeElement?.id)) !== 'f-tp') {
      await page.keyboard.press('Tab');
      presses++;
    }
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('f-tp');
    expect(await page.isHidden('[data-field="moe_ffn"]')).toBe(true);
    expect(await page.isHidden('[data-field="q_lora_rank"]')).toBe(true);
    expect(await page.isHidden('[data-field="kv_dtype"]')).toBe(true);
    expect(await page.getAttribute('#f-head_dim', 'placeholder')).toBe('auto: 128');
    expect(await page.inputValue('#f-head_dim')).toBe('');
    // A MoE model shows its fields; inference shows its own and hides training's.
    await page.selectOption('#f-model', 'mixtral-8x7b');
    await page.waitForFunction(() => !(document.querySelector('[data-field="moe_ffn"]') as HTMLElement).hidden);
    await page.selectOption('#f-mode', 'inference');
    await page.waitForFunction(() => !(document.querySelector('[data-field="kv_dtype"]') as HTMLElement).hidden);
    expect(await page.isHidden('[data-field="microbatches"]')).toBe(true);
    expect(await page.getAttribute('#verdict', 'data-verdict')).not.toBe('error');
  });

  it('finds a model preset by typing part of its name', async () => {
    const page = await open('?tp=1&dp=8');
    await page.fill('#model-search', 'mixtral 8x22');
    await page.waitForFunction(() => location.search.includes('model=mixtral-8x22b'));
    expect(await page.inputValue('#f-model')).toBe('mixtral-8x22b');
    await page.fill('#model-search', 'Llama-3.1 405B');
    await page.waitForFunction(() => location.search.includes('model=llama-3.1-405b'));
    // Every word must match, whatever the separators: "llama 3.1 70b" is Llama-3.1 70B.
    await page.fill('#model-search', 'llama 3.1 70b');
    await page.waitForFunction(() => location.search.includes('model=llama-3.1-70b'));
    // The names people type for the models of 2024–25.
    await page.fill('#model-search', 'qwen3 30b');
    await page.waitForFunction(() => location.search.includes('model=qwen3-30b-a3b'));
    await page.fill('#model-search', 'llama 4 scout');
    await page.waitForFunction(() => location.search.includes('model=llama-4-scout'));
    // "gpt-oss" names two models: the page says so and keeps the model; the size picks one.
    await page.fill('#model-search', 'gpt-oss');
    await page.waitForFunction(() => document.getElementById('model-search-status')?.textContent === '2 models match');
    expect(new URL(page.url()).searchParams.get('model')).toBe('llama-4-scout');
    await page.fill('#model-search', 'gpt-oss 120b');
    await page.waitForFunction(() => location.search.includes('model=gpt-oss-120b'));
    // The picker groups the presets by family, in the engine's order; the selected one is inside its group.
    const groups = await page.$$eval('#f-model optgroup', (list) => list.map((g) => (g as HTMLOptGroupElement).label));
    expect(groups.slice(0, 4)).toEqual(['The chapter and papers', 'Llama', 'Qwen', 'DeepSeek']);
    expect(groups).toContain('gpt-oss');
    expect(await page.$eval('#f-model option:checked', (o) => (o.parentElement as HTMLOptGroupElement).label)).toBe('gpt-oss');
    await page.fill('#model-search', 'llama 3.1 70b');
    await page.waitForFunction(() => location.search.includes('model=llama-3.1-70b'));
    // Typed key by key, "gemma 9c" passes through "gemma" (a unique match, Gemma-2 9B) and ends matching
    // nothing: the model the search started from comes back, and the page says there is no match.
    await page.fill('#model-search', '');
    await page.click('#model-search');
    await page.keyboard.type('gemma 9c');
    await page.waitForFunction(() => document.getElementById('model-search-status')?.textContent?.startsWith('no match'));
    await page.waitForFunction(() => (document.getElementById('f-model') as HTMLSelectElement).value === 'llama-3.1-70b');
  });
});

describe('inputs that accept what people type', () => {
  it('reads 8k, 8,192, 70B and 80 GiB, shows the value read, and follows the page unit', async () => {
    const page = await open('?model=llama-3.1-8b&tp=1&dp=8');
    await page.fill('#f-seq', '8k');
    await page.waitForFunction(() => location.search.includes('seq=8192'));
    expect(await page.textContent('#p-seq')).toBe('= 8,192');
    await page.fill('#f-seq', '16,384');
    await page.waitForFunction(() => location.search.includes('seq=16384'));
    await page.click('#group-hardware summary');
    await page.fill('#f-gpu_gb', '80 GiB');
    await page.waitForFunction(() => location.search.includes('gpu_gb=85.89934592'));
    await page.click('#group-model summary');
    await page.fill('#f-params', '8B');
    await page.waitForFunction(() => location.search.includes('params=8000000000'));
    // The capacity field follows the GB/GiB toggle, as every number does.
    await page.selectOption('#unit', 'gib');
    await page.waitForFunction(() => (document.getElementById('f-gpu_gb') as HTMLInputElement).value === '80 GiB');
  });

  it('puts the page in a not-computed state for a value it cannot read, without changing the link', async () => {
    const page = await open('?model=llama-3.1-8b&tp=1&dp=8');
    const link = page.url();
    await page.fill('#f-dp', 'eight');
    await page.waitForSelector('#verdict[data-verdict="error"]');
    expect(await page.getAttribute('#result', 'data-stale')).toBe('true');
    expect(await page.textContent('#m-dp')).toContain('dp must be');
    expect(page.url()).toBe(link);
    await page.fill('#f-dp', '8');
    await page.waitForSelector('#verdict[data-verdict="fits"]');
  });
});

describe('the GPU count is a constraint', () => {
  it('DP follows a typed GPU count, a DP that does not multiply to it is refused at the field, and the planner opens with it', async () => {
    const page = await open('?model=llama-3.1-70b&tp=8&dp=32&gpu=h100-80gb');
    await page.fill('#f-gpus', '64');
    await page.waitForFunction(() => (document.getElementById('f-dp') as HTMLInputElement).value === '8');
    expect(await page.textContent('#notices')).toContain('dp = 8: gpus / (TP × PP × CP) = 64 / 8');
    await page.waitForFunction(() => document.body.textContent!.includes('TP 8 × PP 1 × DP 8 = 64 GPUs'));
    await page.waitForURL((url) => url.search.includes('gpus=64') && url.search.includes('dp=8'));
    // A DP that does not multiply to the stated GPUs is no green fit: the field says what DP would.
    await page.fill('#f-dp', '32');
    await page.waitForSelector('#verdict[data-verdict="error"]');
    expect(await page.textContent('#m-dp')).toContain('dp must be gpus / (TP × PP × CP) = 64 / 8 = 8');
    await page.fill('#f-dp', '8');
    await page.waitForFunction(() => document.getElementById('verdict')!.getAttribute('data-verdict') !== 'error');
    // GPUs that the layout cannot divide name the counts that would do.
    await page.fill('#f-gpus', '60');
    await page.waitForSelector('#verdict[data-verdict="error"]');
    expect(await page.textContent('#m-gpus')).toContain('56 or 64 would be');
    await page.fill('#f-gpus', '64');
    await page.waitForFunction(() => document.getElementById('verdict')!.getAttribute('data-verdict') !== 'error');
    await page.click('#what-fits');
    expect(await page.inputValue('#plan-gpus')).toBe('64');
  });
});

describe('a choice brings what it requires', () => {
  it('choosing a framework or QLoRA applies what it needs, says so, and computes', async () => {
    const page = await open('?model=llama-3.1-8b&tp=1&dp=8&method=membudget');
    await page.selectOption('#f-framework', 'torchtitan');
    await page.waitForFunction(() => (document.getElementById('f-zero') as HTMLSelectElement | HTMLInputElement).value === '3');
    expect(await page.textContent('#notices')).toContain("zero = 3: framework torchtitan shards with FSDP2's fully_shard");
    await page.waitForFunction(() => !['error', null].includes(document.getElementById('verdict')!.getAttribute('data-verdict')));
    await page.selectOption('#f-framework', 'megatron');
    await page.selectOption('#f-finetune', 'qlora');
    await page.waitForFunction(() => (document.getElementById('f-framework') as HTMLSelectElement).value === 'torchtune');
    expect(await page.textContent('#notices')).toContain('Megatron-LM has no QLoRA path');
    await page.waitForFunction(() => !['error', null].includes(document.getElementById('verdict')!.getAttribute('data-verdict')));
  });
});

describe('a refused value', () => {
  it('never reaches the link; the last result stays, greyed and out of date; each problem links to its field', async () => {
    const page = await open('?model=llama-3.1-8b&tp=1&dp=8&gpu=h100-80gb');
    await page.waitForSelector('#verdict[data-verdict="fits"]');
    const link = page.url();
    const rows = (await page.$$('#ledger tr[data-line]')).length;
    await page.fill('#f-tp', '3');
    await page.waitForSelector('#verdict[data-verdict="error"]');
    expect(await page.getAttribute('#result', 'data-stale')).toBe('true');
    expect(await page.$$('#ledger tr[data-line]')).toHaveLength(rows);
    expect(await page.textContent('#ledger caption')).toContain('Out of date');
    // The link's debounced write would have happened by the time a valid change is written after it.
    await page.fill('#f-seq', '2048');
    await page.waitForSelector('#verdict[data-verdict="error"]');
    expect(page.url()).toBe(link);
    const fieldLink = page.locator('#verdict a[data-field="tp"]');
    expect(await fieldLink.textContent()).toBe('Tensor parallel TP');
    await fieldLink.click();
    await page.waitForFunction(() => document.activeElement?.id === 'f-tp');
    await page.fill('#f-tp', '2');
    await page.waitForSelector('#verdict[data-verdict="fits"]');
    expect(await page.getAttribute('#result', 'data-stale')).toBe('false');
    await page.waitForURL((url) => url.search.includes('tp=2') && url.search.includes('seq=2048'));
  });
});

describe('serving at a glance', () => {
  it('states the most concurrent sequences and the longest context, capped by the model window, in the sticky answer', async () => {
    const page = await open('?model=mixtral-8x7b&mode=inference&method=membudget&gpu=h200&tp=2&dp=1&seq=4096');
    await page.waitForSelector('#serving:not([hidden])');
    const text = (await page.textContent('#serving'))!;
    expect(text).toContain('Maximum concurrency for 4,096 tokens per request:');
    expect(text).toContain("32,768 tokens (the model's window: 32,768)");
    expect(await inView(page, '#serving')).toBe(true);
    // Beyond the window, inference is refused at seq.
    await page.fill('#f-seq', '65536');
    await page.waitForSelector('#verdict[data-verdict="error"]');
    expect(await page.textContent('#m-seq')).toContain("seq must be at most the model's context window (context_window = 32,768)");
    expect(await page.isHidden('#serving')).toBe(true);
  });

  it('switching to inference serves one replica, labels mb as concurrent sequences and copies as vllm serve', async () => {
    const page = await open('?model=llama-3.1-70b&tp=8&dp=32&gpu=h100-80gb');
    await page.waitForSelector('body[data-ready="true"]');
    expect(await page.textContent('label[for="f-mb"]')).toContain('Micro-batch');
    expect(await page.inputValue('#copy-as-format')).toBe('megatron');
    await page.selectOption('#f-mode', 'inference');
    await page.waitForSelector('#serving:not([hidden])');
    expect(await page.inputValue('#f-dp')).toBe('1');
    expect(await page.textContent('#summary')).toContain('TP 8 × PP 1 × DP 1 = 8 GPUs');
    expect(await page.textContent('label[for="f-mb"]')).toContain('Concurrent sequences');
    expect(await page.inputValue('#copy-as-format')).toBe('vllm');
    expect(await page.textContent('#notices')).toContain('dp = 1: inference sizes one replica');
    // A format the user picks stays while the mode stays; a new mode offers its own again.
    await page.selectOption('#copy-as-format', 'deepspeed');
    await page.fill('#f-seq', '8192');
    await page.waitForFunction(() => new URL(location.href).searchParams.get('seq') === '8192');
    expect(await page.inputValue('#copy-as-format')).toBe('deepspeed');
    await page.selectOption('#f-mode', 'training');
    await page.waitForFunction(() => document.querySelector('label[for="f-mb"]')?.textContent?.includes('Micro-batch'));
    expect(await page.inputValue('#copy-as-format')).toBe('megatron');
    await page.selectOption('#f-framework', 'torchtitan');
    await page.waitForFunction(() => (document.querySelector('#copy-as-format') as HTMLSelectElement).value === 'torchtitan');
  });
});

describe('help that can be read', () => {
  it("draws a focused field's help on top of every other field, anchored to it, at every width", async () => {
    for (const viewport of [WIDE, PHONE, EMBED]) {
      const page = await open('?model=llama-3.1-70b&tp=8&dp=32&gpu=h100-80gb', viewport);
      // Every section open, every visible control focused in turn: what the page draws at the help's centre and
      // near its corners is the help itself, and the help starts right below its field's control.
      const hidden = await page.evaluate(() => {
        for (const d of document.querySelectorAll('details')) d.open = true;
        const out: string[] = [];
        for (const help of document.querySelectorAll<HTMLElement>('.field .help')) {
          const field = help.closest('.field') as HTMLElement;
          const control = field.querySelector<HTMLElement>(':scope > input, :scope > select');
          if (!control || field.hidden || control.offsetParent === null) continue;
          control.focus();
          help.scrollIntoView({ block: 'center' });
          const box = help.getBoundingClientRect();
          const below = control.getBoundingClientRect();
          if (box.height === 0 || Math.abs(box.top - below.bottom) > 40) {
            out.push(`${field.id || control.id}: not anchored`);
            continue;
          }
          // The help lets the pointer through (pointer-events: none); hit-testing needs it to answer for a moment.
          help.style.pointerEvents = 'auto';
          for (const [x, y] of [
            [box.left + box.width / 2, box.top + box.height / 2],
            [box.left + 4, box.top + 4],
            [box.right - 4, box.bottom - 4],
          ]) {
            const hit = document.elementFromPoint(x, y);
            if (!hit || !help.contains(hit)) {
              out.push(`${control.id}: covered by ${hit?.closest('[id]')?.id ?? hit?.tagName}`);
              break;
            }
          }
          help.style.pointerEvents = '';
        }
        return out;
      });
      expect(hidden, `${viewport.width} × ${viewport.height}`).toEqual([]);
      expect(await page.$$eval('.field .help', (h) => h.length)).toBeGreaterThan(40);
    }
  });
});

describe('the embed', () => {
  it('fits the README frame of 820 × 640 with the summary and no planner', async () => {
    const page = await open('?embed=1&model=llama-3.1-70b&tp=8&pp=2&dp=16&ckpt=selective&sp=true&method=membudget', EMBED);
    expect(await page.evaluate(() => document.documentElement.scrollHeight)).toBeLessThanOrEqual(EMBED.height);
    expect(await page.isVisible('#summary')).toBe(true);
    expect(await page.isVisible('#planner')).toBe(false);
    expect(await axe(page)).toEqual([]);
    await page.screenshot({ path: resolve(SHOTS, 'screenshot-embed.png') });
  });

  it('says what the host must do when the engine cannot be loaded', async () => {
    // Its own context: the route below would refuse the .wasm to the tests after it.
    await session.open('', { viewport: EMBED, ownContext: true });
    const opened = session.opened!;
    // A failed .wasm request: the page reports it instead of loading forever (the failed request itself is expected).
    await opened.context.route('**/*.wasm', (route) => route.abort());
    await opened.page.reload();
    await opened.page.waitForSelector('#load-error');
    expect(await opened.page.textContent('#load-error')).toContain('Access-Control-Allow-Origin');
    opened.trouble.length = 0;
  });

  it('says so when the methods compared cannot load their module, and the ledger stays', async () => {
    // The comparison is the on-demand module's (issue 31): a host that fails to serve it leaves the page's answer.
    await session.open('?model=llama-3.1-8b&tp=2&dp=4', { ownContext: true });
    const opened = session.opened!;
    await opened.context.route('**/membudget-planner*.wasm', (route) => route.abort());
    await opened.page.click('#compare summary');
    await opened.page.waitForSelector('#compare .compare-body[data-state="error"]');
    expect(await opened.page.textContent('#compare .compare-body')).toContain('The methods could not be loaded');
    expect(await opened.page.$$eval('#ledger tr[data-line]', (rows) => rows.length)).toBeGreaterThan(3);
    opened.trouble.length = 0;
  });
});

describe('the planner where people look', () => {
  it('opens from the top with its own GPU count focused, and Enter searches', async () => {
    const page = await open('?model=llama-3.1-8b&tp=1&dp=8&gpu=h100-80gb');
    await page.click('#what-fits');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('plan-gpus');
    await page.fill('#plan-gpus', '16');
    await page.press('#plan-gpus', 'Enter');
    await page.waitForSelector('#plan-table tbody tr');
    const headers = await page.$$eval('#plan-table th', (ths) => ths.map((th) => th.getAttribute('title')));
    expect(headers.every((t) => t)).toBe(true);
    // Loading a row moves the focus to the verdict.
    await page.focus('#plan-table tbody tr .plan-load');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.activeElement?.id === 'verdict');
    expect(await axe(page)).toEqual([]);
  });

  it('opens when asked for before the panels below the ledger are built, and builds them once', async () => {
    // The panels below the ledger are built after its first frame (issue 31); a click on "What fits on my GPUs?"
    // before then builds them at once. The click comes from a mutation observer, as soon as the button is in the
    // page: after the page's construction, before its first frame and before the form (data-ready).
    await session.open('?model=llama-3.1-8b&tp=1&dp=8', { ownContext: true });
    const opened = session.opened!;
    await opened.context.addInitScript(() => {
      new MutationObserver((_, observer) => {
        const button = document.getElementById('what-fits');
        if (!button) return;
        observer.disconnect();
        document.documentElement.dataset.clickedBeforeReady = String(document.body.dataset.ready !== 'true');
        button.click();
      }).observe(document, { childList: true, subtree: true });
    });
    await opened.page.reload();
    await opened.page.waitForSelector('body[data-ready="true"]');
    expect(await opened.page.evaluate(() => document.documentElement.dataset.clickedBeforeReady)).toBe('true');
    expect(await opened.page.$$eval('#planner', (nodes) => nodes.map((n) => (n as HTMLDetailsElement).open))).toEqual([true]);
    for (const id of ['#measured', '#compare', '#stages']) expect(await opened.page.$$eval(id, (nodes) => nodes.length)).toBe(1);
    expect(await opened.page.evaluate(() => document.activeElement?.id)).toBe('plan-gpus');
    // In their places: the measured run before the advice, the planner after it.
    const order = await opened.page.$$eval('.results > *', (nodes) => nodes.map((n) => n.id || n.className));
    expect(order.indexOf('measured')).toBeLessThan(order.indexOf('advice'));
    expect(order.indexOf('advice')).toBeLessThan(order.indexOf('planner'));
  });
});

describe("a newcomer's first screen", () => {
  it('opens on a real model and GPU under membudget, with "import your launch file" and one-click examples', async () => {
    for (const viewport of [WIDE, PHONE]) {
      const page = await open('', viewport);
      await page.waitForSelector('body[data-ready="true"]');
      const summary = (await page.textContent('#summary'))!;
      expect(summary).toContain('Llama-3.1 8B');
      expect(summary).toContain('NVIDIA H100');
      expect(await page.inputValue('#f-method')).toBe('membudget');
      expect(await page.getAttribute('#verdict', 'data-verdict')).toBe('fits');
      // The start is what its link says: the written link reproduces it.
      await page.waitForFunction(() => location.search.includes('model=llama-3.1-8b'));
      expect(await inView(page, '#importer > summary')).toBe(true);
      // The page's first action after the skip link: import the launch file (or try an example).
      await page.keyboard.press('Tab');
      await page.keyboard.press('Tab');
      expect(await page.evaluate(() => document.activeElement?.parentElement?.id)).toBe('importer');
      expect(await page.textContent('#importer > summary')).toContain('Import your launch file');
    }
  });

  it('computes every example as its link does, and Back returns to where the user was', async () => {
    const page = await open('');
    await page.waitForSelector('body[data-ready="true"]');
    const start = new URL(page.url()).search;
    const examples = await page.$$eval('#start .example', (b) => b.map((x) => x.getAttribute('data-example')!));
    expect(examples.length).toBeGreaterThanOrEqual(4);
    await page.click('#importer > summary');
    for (const id of examples) {
      await page.click(`#start .example[data-example="${id}"]`);
      await page.waitForFunction(() => document.activeElement?.id === 'verdict');
      await page.waitForFunction((search) => location.search !== search, start);
      const verdict = await page.getAttribute('#verdict', 'data-verdict');
      expect(verdict, id).toMatch(/^(fits|tight)$/);
      // What the link says computes the same total in the CLI.
      const total = Number(await page.getAttribute('#ledger tr[data-summary="total"]', 'data-bytes'));
      expect(total, id).toBe(cliResultForQuery(new URL(page.url()).search.slice(1)).total_bytes);
      await page.goBack();
      await page.waitForFunction((search) => location.search === search, start);
    }
    // The chapter's generic example is one of them, and its link names it.
    await page.click('#start .example[data-example="chapter"]');
    await page.waitForFunction(() => location.search.includes('model=chapter-70b'));
    expect(await page.textContent('#summary')).toContain('chapter');
  });
});

describe('the error band', () => {
  it('says in the answer how far membudget has been from runs like it, as the CLI does, and a margin inside it is tight', async () => {
    for (const query of [
      'model=llama-3.1-70b&gpu=h100-80gb&method=membudget&tp=8&pp=2&dp=16&ckpt=selective&sp=true',
      'model=llama-3.1-8b&gpu=h100-80gb&method=membudget&framework=torchtitan&tp=1&dp=8&zero=3',
      'model=chapter-70b',
    ]) {
      const page = await open(`?${query}`);
      const cli = cliResultForQuery(query);
      await page.waitForFunction((text) => document.querySelector('#band')?.textContent === `Accuracy: ${text}`, cli.error_band.text);
      expect(await page.getAttribute('#band', 'data-validated')).toBe(String(cli.error_band.validated));
      expect(await page.getAttribute('#verdict', 'data-verdict')).toBe(cli.verdict);
    }
    // Under the headroom line by less than the validated band's worst under-prediction: tight, and the verdict says why.
    const base = 'model=llama-3.1-70b&gpu=h100-80gb&method=membudget&tp=8&pp=2&dp=16&ckpt=selective&sp=true';
    const cli = cliResultForQuery(base);
    expect(cli.error_band.validated).toBe(true);
    expect(cli.error_band.low).toBeLessThan(0);
    const capacityGb = ((cli.total_bytes * (1 - cli.error_band.low / 2)) / 0.9 / 1e9).toFixed(3);
    const inside = `${base}&gpu_gb=${capacityGb}`;
    const tight = cliResultForQuery(inside);
    expect(tight.total_bytes).toBeLessThanOrEqual(tight.usable_bytes);
    expect(tight.verdict).toBe('tight');
    const page = await open(`?${inside}`);
    await page.waitForSelector('#verdict[data-verdict="tight"]');
    expect(await page.textContent('#verdict')).toContain('inside the error band');
  });
});

describe('a phone and a keyboard', () => {
  it('names the largest components in the first screen of a phone, and never breaks a number inside its digits', async () => {
    const page = await open('?model=llama-3.1-70b&tp=8&dp=32&gpu=h100-80gb', PHONE);
    await page.waitForSelector('body[data-ready="true"]');
    const lines = await page.$$eval('#ledger tr[data-line]', (rows) =>
      rows.map((r) => ({ label: r.querySelector('th, td')!.textContent!.trim(), bytes: Number(r.getAttribute('data-bytes')) })),
    );
    const top = [...lines].sort((a, b) => b.bytes - a.bytes).slice(0, 3);
    const largest = (await page.textContent('#largest'))!;
    for (const line of top) expect(largest).toContain(line.label);
    expect(await inView(page, '#largest')).toBe(true);
    // Every grouped or decimal number in the answer, the checklist and the advice lies on one line.
    const broken = await page.evaluate(() => {
      const out: string[] = [];
      for (const root of document.querySelectorAll('#answer, #result, #advice')) {
        const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
          const text = node.textContent ?? '';
          for (const match of text.matchAll(/\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+\.\d+/g)) {
            const range = document.createRange();
            range.setStart(node, match.index!);
            range.setEnd(node, match.index! + match[0].length);
            const tops = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
            if (tops.size > 1) out.push(match[0]);
          }
        }
      }
      return out;
    });
    expect(broken).toEqual([]);
  });

  it('gives every control a touch target of 24 × 24 px or more', async () => {
    for (const viewport of [PHONE, WIDE]) {
      const page = await open('?model=llama-3.1-70b&tp=8&dp=32&gpu=h100-80gb', viewport);
      await page.waitForSelector('body[data-ready="true"]');
      const small = await page.evaluate(() => {
        for (const d of document.querySelectorAll('details')) d.open = true;
        const out: string[] = [];
        for (const c of document.querySelectorAll<HTMLElement>('button, select, input, summary, textarea')) {
          if (c.offsetParent === null || c.closest('[hidden]')) continue;
          const r = c.getBoundingClientRect();
          if (r.width < 24 || r.height < 24) out.push(`${c.id || c.tagName}: ${Math.round(r.width)} × ${Math.round(r.height)}`);
        }
        return out;
      });
      expect(small, `${viewport.width} × ${viewport.height}`).toEqual([]);
    }
  });

  it('planner rows: a named Load button with a focus ring, focus back after a search, and Back undoes a loaded row', async () => {
    const page = await open('?model=llama-3.1-8b&tp=1&dp=8&gpu=h100-80gb');
    await page.waitForSelector('body[data-ready="true"]');
    const before = new URL(page.url()).search;
    const summary = await page.textContent('#summary');
    await page.click('#what-fits');
    await page.fill('#plan-gpus', '16');
    await page.focus('#plan-run');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#plan-table tbody tr');
    await page.waitForFunction(() => document.activeElement?.id === 'plan-run');
    // The keyboard reaches the first row's Load button next, named for its layout, with a visible ring.
    await page.focus('#plan-table tbody tr:first-child .plan-load');
    const load = await page.$eval('#plan-table tbody tr:first-child .plan-load', (b) => ({
      name: b.getAttribute('aria-label'),
      outline: getComputedStyle(b).outlineStyle,
      width: parseFloat(getComputedStyle(b).outlineWidth),
    }));
    expect(load.name).toMatch(/^Load TP \d+ × PP \d+ × CP \d+ × DP \d+.* into the checklist$/);
    expect(load.outline).not.toBe('none');
    expect(load.width).toBeGreaterThanOrEqual(2);
    const entries = await page.evaluate(() => history.length);
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.activeElement?.id === 'verdict');
    await page.waitForFunction((search) => location.search !== search, before);
    expect(await page.evaluate(() => history.length)).toBe(entries + 1);
    // Back: the configuration before the row, its link and its summary.
    await page.goBack();
    await page.waitForFunction((search) => location.search === search, before);
    await page.waitForFunction((text) => document.querySelector('#summary')?.textContent === text, summary);
  });

  it('reads the verdict out from one polite live region, once a burst of edits pauses', async () => {
    const page = await open('?model=llama-3.1-70b&tp=8&dp=32&gpu=h100-80gb');
    await page.waitForSelector('body[data-ready="true"]');
    expect(await page.getAttribute('#verdict', 'aria-live')).toBeNull();
    // No other live region speaks the verdict, and the fields' read-backs and messages are descriptions, not live.
    expect(await page.$$eval('.field .message[aria-live], .field .parsed[aria-live]:not(#model-search-status)', (n) => n.length)).toBe(0);
    await page.waitForFunction(() => document.querySelector('#announce')?.textContent !== '');
    // Six edits in one task: the region changes once, to the last one's verdict.
    const changes = await page.evaluate(async () => {
      const region = document.querySelector('#announce')!;
      let count = 0;
      const observer = new MutationObserver(() => ++count);
      observer.observe(region, { childList: true, characterData: true, subtree: true });
      const seq = document.querySelector<HTMLInputElement>('#f-seq')!;
      for (const value of ['1', '10', '102', '1024', '10240', '16384']) {
        seq.value = value;
        seq.dispatchEvent(new Event('input', { bubbles: true }));
      }
      const want = () => document.querySelector('#verdict strong')?.textContent ?? '';
      await new Promise<void>((resolve) => {
        const check = () => (region.textContent?.startsWith(want()) && count > 0 ? resolve() : requestAnimationFrame(check));
        check();
      });
      observer.disconnect();
      return count;
    });
    expect(changes).toBe(1);
    const said = (await page.textContent('#announce'))!;
    expect(said).toContain('per GPU');
    const speakers = await page.$$eval(
      '[aria-live], [role="status"]',
      (regions, text) => regions.filter((r) => r.textContent?.includes(text)).map((r) => r.id),
      said,
    );
    expect(speakers).toEqual(['announce']);
  });

  it('has no violation of any impact with every section open', async () => {
    const page = await open('?model=llama-3.1-70b&tp=8&dp=32&gpu=h100-80gb');
    await page.waitForSelector('body[data-ready="true"]');
    await page.evaluate(() => {
      for (const d of document.querySelectorAll('details')) d.open = true;
    });
    await page.waitForSelector('#advice[data-state="ready"], #advice[hidden]', { state: 'attached' });
    expect(await axe(page, 'body', true)).toEqual([]);
  });
});

describe('accessibility (axe-core) and polish', () => {
  // One test per state, so that a violation names its state and each test waits for one page only.
  it('has no serious or critical violation on the default page', async () => {
    const page = await open('');
    expect(await axe(page)).toEqual([]);
  });

  it('has no serious or critical violation in the not-computed state of an error', async () => {
    const page = await open('');
    await page.fill('#f-tp', '0');
    await page.waitForSelector('#verdict[data-verdict="error"]');
    expect(await axe(page)).toEqual([]);
  });

  const overQuery = '?model=llama-3.1-405b&tp=1&dp=8&gpu=h100-80gb&method=membudget';
  async function overWithAdvice(): Promise<Page> {
    const over = await open(overQuery);
    await over.waitForSelector('#verdict[data-verdict="does_not_fit"]');
    await over.waitForSelector('#advice[data-state="ready"], #advice li');
    return over;
  }

  it('has no serious or critical violation in a does-not-fit state with its advice', async () => {
    expect(await axe(await overWithAdvice())).toEqual([]);
  });

  it('has no serious or critical violation with the importer open, and has a skip link, an icon, a manifest and link previews', async () => {
    const over = await overWithAdvice();
    await over.click('.importer summary');
    expect(await axe(over)).toEqual([]);
    // A skip link, an icon, a manifest, link-preview tags.
    expect(await over.getAttribute('.skip-link', 'href')).toBe('#answer');
    expect(await over.getAttribute('link[rel="icon"]', 'href')).toBe('./favicon.svg');
    expect(await over.getAttribute('link[rel="manifest"]', 'href')).toBe('./manifest.webmanifest');
    expect(await over.getAttribute('meta[property="og:title"]', 'content')).toContain('membudget');
  });

  it('has no violation of any impact in the serving planner with its plan and every GPU’s', async () => {
    const page = await open('?model=llama-3.1-70b&gpu=h100-80gb&mode=inference&gpus=8&input_tokens=1024&output_tokens=512&seq=2048');
    await page.click('#planner summary');
    await page.fill('#serving-tpot', '30');
    await page.click('#serving-run');
    await page.waitForSelector('#serving-planner[data-state="done"] #serving-table tbody tr');
    expect(await axe(page, '#planner', true)).toEqual([]);
    await page.click('#serving-which-gpu');
    await page.waitForSelector('#serving-planner[data-state="done"] #serving-gpus-table tbody tr');
    expect(await axe(page, '#planner', true)).toEqual([]);
    await page.fill('#serving-gpus', '0');
    await page.click('#serving-run');
    await page.waitForSelector('#serving-planner[data-state="error"]');
    expect(await axe(page, '#planner', true)).toEqual([]);
  });

  it('prints the checklist without the controls, and has a dark scheme', async () => {
    const page = await open('?model=llama-3.1-8b&tp=1&dp=8');
    await page.emulateMedia({ media: 'print' });
    expect(await page.isVisible('#config-form')).toBe(false);
    expect(await page.isVisible('#ledger')).toBe(true);
    await page.emulateMedia({ media: 'screen', colorScheme: 'dark' });
    const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    expect(background).not.toBe('rgb(244, 246, 248)');
    expect(await axe(page)).toEqual([]);
  });

  it('computes the same ledger as the CLI for the summary it states', async () => {
    const page = await open('?model=llama-3.1-70b&tp=8&pp=2&dp=16&gpu=h100-80gb&method=membudget&framework=torchtitan&zero=3');
    expect(await page.textContent('#summary')).toContain('torchtitan · TP 8 × PP 2 × DP 16 = 256 GPUs');
    const cli = JSON.parse(
      runCli(['--json', '--url', 'model=llama-3.1-70b&tp=8&pp=2&dp=16&gpu=h100-80gb&method=membudget&framework=torchtitan&zero=3']).stdout,
    );
    expect(await page.getAttribute('#ledger tr[data-summary="total"]', 'data-bytes')).toBe(String(cli.total_bytes));
  });
});
