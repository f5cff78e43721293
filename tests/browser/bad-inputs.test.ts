// The bad-inputs table (tests/fixtures/bad-inputs.json) in the built page, one case for each kind of place where
// the page shows what the table expects: a link's error at an essential field, at a field in a collapsed group, at a
// field hidden where it does not apply, in the link's notices (for a field, or for a key that is no field), and a
// valid link's verdict and ledger; a typed field's text the engine cannot read or value it refuses, essential or in
// a group; a config.json's refusal in the importer. The first entry of each kind in the table is the case, so a new
// kind of entry brings its own case. Each case shows the error at the field the table names with the native CLI's
// messages, no NaN, Infinity or undefined in the page's own text, no console error, no crash, no
// Content-Security-Policy violation and no request to another origin.
//
// Every entry of the table runs in the wasm tier (tests/wasm/bad-inputs.test.ts: the link codec, the form path and
// the importer, each against the CLI's fields and messages), and the native one (tests/cpp/test_bad_inputs.cpp);
// the other entries of a kind moved from this file to those, which check the same messages without a page.
import { readFileSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadEngine, MembudgetError, type Engine } from '../../web/src/engine';
import { applies } from '../../web/src/form';
import { launchChromium } from '../support/browser.mjs';
import { runCli } from '../support/cli';
import { DIST, fixture, WASM, WASM_DATA } from '../support/paths';
import { BROWSER_WAIT_TIMEOUT_MS, browserTimeouts } from '../support/page';
import { serveStatic, type StaticServer } from '../support/server.mjs';

interface BadInput {
  name: string;
  query?: string;
  hf?: string;
  field?: string;
  message_contains?: string;
  valid?: boolean;
  verdict?: string;
}

interface Problem {
  field: string;
  message: string;
}

const inputs: BadInput[] = fixture('bad-inputs').inputs;
browserTimeouts();
// The engine sorts the table into kinds before any page opens: where the link codec puts a problem, and which
// fields the page's form shows (its essentials, and where a field applies).
const engine: Engine = await loadEngine(readFileSync(WASM), readFileSync(WASM_DATA));

/** The first entry of each kind, in the table's order, with its kind. */
function firstOfEachKind(entries: BadInput[], kindOf: (entry: BadInput) => string): [string, BadInput][] {
  const chosen = new Map<string, BadInput>();
  for (const entry of entries) {
    const kind = kindOf(entry);
    if (!chosen.has(kind)) chosen.set(kind, entry);
  }
  return [...chosen];
}

const isField = (key: string) => engine.fields.some((f) => f.key === key);
const isEssential = (key: string) => engine.fields.some((f) => f.key === key && f.essential > 0);
const names = (problems: Problem[], entry: BadInput) =>
  problems.some((p) => p.field === entry.field && p.message.includes(entry.message_contains ?? ''));

/** Where the page shows what the table expects of a link. */
function linkPlacement(entry: BadInput): string {
  if (entry.valid) return `the verdict (${entry.verdict}) and the ledger`;
  const decoded = engine.decodeQuery(entry.query!);
  const key = entry.field!;
  if (names(decoded.notices, entry))
    return isField(key) ? 'the link’s notices, for a field' : 'the link’s notices, for a key that is no field';
  if (!isField(key)) return 'the form’s general messages';
  if (isEssential(key)) return 'an essential field’s message';
  if (!applies(engine, key, decoded.config)) return 'the message of a field hidden where it does not apply';
  return 'the message of a field in a collapsed group';
}

const BASE_PATH = '/tools/membudget/';
const LINK_TABS = 3; // links are checked three at a time: most of a page load is waiting, not computing

let server: StaticServer;
let browser: Browser;
let context: BrowserContext;

// A page and what went wrong in it: console errors or warnings, uncaught errors, dialogs, foreign requests.
interface Tab {
  page: Page;
  trouble: string[];
}

const idle: Tab[] = [];
const waiting: ((tab: Tab) => void)[] = [];
let formTab: Tab;
let opened = false; // the form tab shows the default page

async function newTab(): Promise<Tab> {
  const page = await context.newPage();
  const tab: Tab = { page, trouble: [] };
  page.on('request', (request) => {
    const url = request.url();
    if (!url.startsWith(server.origin) && !url.startsWith('data:') && !url.startsWith('blob:')) tab.trouble.push(`request to ${url}`);
  });
  page.on('pageerror', (error) => tab.trouble.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') tab.trouble.push(`console ${message.type()}: ${message.text()}`);
  });
  page.on('dialog', (dialog) => {
    tab.trouble.push(`dialog: ${dialog.message()}`);
    void dialog.dismiss();
  });
  return tab;
}

beforeAll(async () => {
  server = await serveStatic(DIST, BASE_PATH);
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  context.setDefaultTimeout(BROWSER_WAIT_TIMEOUT_MS);
  // Every frame records the policy violations it sees.
  await context.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (event) => {
      const w = window as unknown as { __violations?: string[] };
      (w.__violations ??= []).push(`${event.effectiveDirective} blocked ${event.blockedURI}`);
    });
  });
  for (let i = 0; i < LINK_TABS; i++) idle.push(await newTab());
  formTab = await newTab();
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

// Runs a check in a free tab, then requires that nothing went wrong in it.
async function inTab(check: (page: Page) => Promise<void>, tab?: Tab): Promise<void> {
  const pooled = tab === undefined;
  const used = tab ?? idle.pop() ?? (await new Promise<Tab>((resolve) => waiting.push(resolve)));
  try {
    await check(used.page);
    const violations = await used.page.evaluate(() => (window as unknown as { __violations?: string[] }).__violations ?? []);
    expect([...used.trouble, ...violations], 'console errors, page errors, violations or foreign requests').toEqual([]);
  } finally {
    used.trouble.length = 0;
    if (pooled) {
      const next = waiting.shift();
      if (next) next(used);
      else idle.push(used);
    }
  }
}

function cliErrors(args: string[], input = ''): { status: number; errors: Problem[]; result: any } {
  const run = runCli(args, input);
  const result = JSON.parse(run.stdout);
  return { status: run.status, errors: result.errors, result };
}

async function openQuery(page: Page, query: string): Promise<void> {
  await page.goto(`${server.url}?${query}`);
  await page.waitForSelector('body[data-ready="true"]');
}

// The page's own text: what it quotes of the user's input ("got \"NaN\"") is removed first.
async function expectNoBadText(page: Page): Promise<void> {
  const text = (await page.innerText('body')).replace(/"[^"\n]*"/g, '""');
  expect(text).not.toMatch(/\bNaN\b|(?<!ZeRO-)\bInfinity\b|\bundefined\b/);
}

// The text of the places that belong to a field: its notice from the link, its message in the form.
async function fieldText(page: Page, field: string): Promise<string> {
  return page.evaluate((key) => {
    const parts = [...document.querySelectorAll('#notices li')]
      .filter((li) => li.getAttribute('data-field') === key)
      .map((li) => li.textContent ?? '');
    const message = document.getElementById(`m-${key}`);
    if (message) parts.push(message.textContent ?? '');
    if (key === '')
      parts.push(document.getElementById('form-general')?.textContent ?? '', document.getElementById('notices')?.textContent ?? '');
    return parts.join('\n');
  }, field);
}

async function ledgerBytes(page: Page): Promise<Record<string, number>> {
  const rows = await page.$$eval('#ledger tr[data-line]', (trs) =>
    trs.map((tr) => [tr.getAttribute('data-line'), tr.getAttribute('data-bytes')]),
  );
  return Object.fromEntries(rows.map(([id, bytes]) => [id, Number(bytes)]));
}

describe.concurrent('links from the bad-inputs table, one per place the page shows them', () => {
  const links = inputs.filter((e) => e.query !== undefined);
  const cases = firstOfEachKind(links, linkPlacement);

  it('finds every kind of place among the table’s links', () => {
    expect(links.length).toBeGreaterThan(100);
    expect(cases.map(([kind]) => kind).sort()).toEqual(
      [
        'an essential field’s message',
        'the link’s notices, for a field',
        'the link’s notices, for a key that is no field',
        'the message of a field hidden where it does not apply',
        'the message of a field in a collapsed group',
        ...new Set(links.filter((e) => e.valid).map((e) => `the verdict (${e.verdict}) and the ledger`)),
      ].sort(),
    );
  });

  for (const [kind, entry] of cases) {
    it(`${kind}: ${entry.name}: ?${entry.query}`, async ({ expect }) => {
      const native = cliErrors(['--json', '--url', entry.query!]);
      await inTab(async (page) => {
        await openQuery(page, entry.query!);
        if (entry.valid) {
          expect(await page.getAttribute('#verdict', 'data-verdict')).toBe(entry.verdict);
          const lines = Object.fromEntries(native.result.lines.map((l: { id: string; bytes: number }) => [l.id, l.bytes]));
          expect(await ledgerBytes(page)).toEqual(lines);
        } else {
          expect(await fieldText(page, entry.field!), `the error at ${entry.field}`).toContain(entry.message_contains);
          // Every message the CLI gives for this link is on the page, word for word.
          const shown = (await page.textContent('body')) ?? '';
          for (const problem of native.errors) expect(shown, problem.field).toContain(problem.message);
          // An invalid configuration shows no numbers; a link whose bad pairs were skipped computes the rest.
          const invalid = (await page.$('#verdict.invalid')) !== null;
          expect((await page.$$('#ledger tr[data-line]')).length > 0).toBe(!invalid);
        }
        await expectNoBadText(page);
      });
    });
  }
});

describe('the form, one field typed at a time, one per place and kind of refusal', () => {
  const fields: { key: string; kind: string; default: string }[] = JSON.parse(runCli(['fields']).stdout);
  const typeable = inputs.filter((entry) => {
    if (entry.valid || entry.query === undefined || !/^[a-z_]+=[^&]+$/.test(entry.query)) return false;
    const [key, encoded] = entry.query.split('=');
    let text: string;
    try {
      text = decodeURIComponent(encoded);
    } catch {
      return false; // a malformed escape: a link can hold it, a text field cannot
    }
    if (text.includes('\u0000')) return false;
    const field = fields.find((f) => f.key === key);
    return key === entry.field && field !== undefined && (field.kind === 'integer' || field.kind === 'number');
  });

  // A field shows where it applies (the field table's applies, which the engine answers): MoE fields for a MoE
  // model, MLA fields for MLA, inference fields in inference, the framework with membudget's method. Each is typed
  // in the first of these contexts where it shows.
  const contexts = [
    '',
    'method=membudget',
    'model=mixtral-8x7b&tp=2&dp=8',
    'model=deepseek-v3&tp=8&dp=8',
    'mode=inference&method=membudget',
  ];
  const contextFor = (key: string): string => contexts.find((query) => applies(engine, key, engine.decodeQuery(query).config)) ?? '';

  /** Whether the engine cannot read the typed text (the page keeps the configuration) or refuses its value, and
   * whether the field is an essential or sits in a group that the test opens. */
  const typedPlacement = (entry: BadInput): string => {
    const [key, encoded] = entry.query!.split('=');
    let unreadable = false;
    try {
      engine.setField(engine.decodeQuery(contextFor(key)).config, key, decodeURIComponent(encoded));
    } catch (error) {
      if (!(error instanceof MembudgetError)) throw error;
      unreadable = true;
    }
    return `${unreadable ? 'text the engine cannot read' : 'a value the engine refuses'} in ${isEssential(key) ? 'an essential field' : 'a field of a group'}`;
  };
  const typed = firstOfEachKind(typeable, typedPlacement);

  it('covers most of the table’s single-field inputs, in every kind', () => {
    expect(typeable.length).toBeGreaterThan(40);
    expect(typed.map(([kind]) => kind).sort()).toEqual([
      'a value the engine refuses in a field of a group',
      'a value the engine refuses in an essential field',
      'text the engine cannot read in a field of a group',
      'text the engine cannot read in an essential field',
    ]);
  });

  let openedContext: string | undefined;
  for (const [kind, entry] of typed) {
    it(`${kind}: ${entry.name}: ${entry.query}`, async () => {
      const [key, encoded] = entry.query!.split('=');
      const text = decodeURIComponent(encoded);
      const context = contextFor(key);
      const native = cliErrors(['--json', ...(context ? ['--url', context] : []), `--${key}=${text}`]);
      await inTab(async (page) => {
        if (!opened || openedContext !== context) await openQuery(page, context);
        opened = true;
        openedContext = context;
        // The field's group opens (the essentials are always open).
        await page.evaluate((k) => {
          const details = document.getElementById(`f-${k}`)?.closest('details');
          if (details) details.open = true;
        }, key);
        const previous = await page.inputValue(`#f-${key}`);
        await page.fill(`#f-${key}`, text);
        await page.waitForFunction(
          ([k, fragment]) => document.getElementById(`m-${k}`)?.textContent?.includes(fragment),
          [key, entry.message_contains!],
        );
        expect(await page.getAttribute(`#m-${key}`, 'class')).toContain('error');
        const message = (await page.textContent(`#m-${key}`)) ?? '';
        for (const problem of native.errors.filter((p) => p.field === key)) expect(message).toContain(problem.message);
        await expectNoBadText(page);
        // Back to what it was, which is valid and has no message.
        await page.fill(`#f-${key}`, previous);
        await page.waitForFunction((k) => !document.getElementById(`m-${k}`)?.classList.contains('error'), key);
      }, formTab);
    });
  }
});

describe('a config.json pasted into the importer', () => {
  // Every refusal of a config.json is shown in the importer's message: one case, the table's first.
  for (const [kind, entry] of firstOfEachKind(
    inputs.filter((e) => e.hf !== undefined),
    () => 'the importer’s message',
  )) {
    it(`${kind}: ${entry.name}`, async () => {
      const native = cliErrors(['--json', '--hf-config', '-'], entry.hf);
      await inTab(async (page) => {
        await openQuery(page, 'tp=4');
        await page.click('.importer summary');
        await page.selectOption('#import-format', 'hf');
        await page.fill('#import-text', entry.hf!);
        await page.click('#import-apply');
        await page.waitForSelector('#import-message.error');
        const shown = (await page.textContent('#import-message')) ?? '';
        expect(shown).toContain(entry.message_contains);
        for (const problem of native.errors) expect(shown).toContain(problem.message);
        // All or nothing: the configuration is untouched.
        expect(new URL(page.url()).search).toBe('?tp=4');
        await expectNoBadText(page);
      }, formTab);
      opened = false; // the form tab has left the default page
    });
  }
});
