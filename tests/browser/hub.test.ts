// A model by its Hub id (issue 27, item 6; web/src/hub.ts): the page fetches the config.json of the id or link the
// user gives from https://huggingface.co, under its own Content-Security-Policy, and imports it as a pasted file.
// Here huggingface.co is a stand-in on loopback (tests/support/hub.mjs, the Hub's paths, headers and error
// answers): the browser asks https://huggingface.co/… and the context's route hands the request to the stand-in,
// so the page's policy checks the real origin (the route follows the Hub's redirect itself: Chromium does not
// route the request a fulfilled redirect leads to). The files are real config.json files (tests/fixtures/hf-configs.json).
import { writeFileSync, mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliResultForQuery, runCli } from '../support/cli';
import { serveHub, type StandInHub } from '../support/hub.mjs';
import { fixture, ROOT } from '../support/paths';
import { pageSession, violations } from '../support/page';

const HUB = 'https://huggingface.co';
const session = pageSession({ basePath: '/tools/membudget/' });
const cases = fixture('hf-configs').cases as { name: string; config: Record<string, unknown> }[];
const fileOf = (name: string) => JSON.stringify(cases.find((c) => c.name.startsWith(name))!.config, null, 2);

let hub: StandInHub;
beforeAll(async () => {
  hub = await serveHub({
    'Qwen/Qwen2-7B': { text: fileOf('Qwen2-7B') },
    'openai/gpt-oss-20b': { text: fileOf('gpt-oss-20b'), direct: true },
    'meta-llama/Llama-3.1-8B': { text: fileOf('Llama-3.1-8B'), gated: true },
    'google/gemma-2-9b': { text: fileOf('gemma-2-9b'), revisions: ['main', 'refs/pr/7'] },
  });
});
afterAll(() => hub.close());

/** Held answers: a request to the Hub waits until the test lets it go (to see the page while it waits). */
interface Routing {
  hold?: Promise<void>;
  offline?: boolean;
}

// The page with https://huggingface.co routed to the stand-in (its context is the test's own), opened at `query`.
async function openRouted(query: string, routing: Routing = {}): Promise<Page> {
  const page = await session.open('', { ownContext: true, allowedOrigins: [session.server.origin, HUB] });
  await page.context().route(`${HUB}/**`, async (route) => {
    await routing.hold;
    if (routing.offline) return route.abort('internetdisconnected');
    const url = new URL(route.request().url());
    const answer = await route.fetch({ url: `${hub.origin}${url.pathname}${url.search}` });
    await route.fulfill({ response: answer });
  });
  await page.goto(`${session.server.url}${query}`);
  await page.waitForSelector('body[data-ready="true"]');
  return page;
}

async function ledgerBytes(page: Page): Promise<Record<string, number>> {
  const rows = await page.$$eval('#ledger tr[data-line]', (trs) =>
    trs.map((tr) => [tr.getAttribute('data-line'), tr.getAttribute('data-bytes')]),
  );
  return Object.fromEntries(rows.map(([id, bytes]) => [id, Number(bytes)]));
}

async function fetchId(page: Page, id: string): Promise<void> {
  if (!(await page.isVisible('#hub-id'))) await page.click('.importer summary');
  await page.fill('#hub-id', id);
  await page.click('#hub-fetch');
}

describe('a model by its Hub id', () => {
  it('fetches the config.json, computes what the CLI computes from the file, and the link reproduces it', async () => {
    const page = await openRouted('?gpu=h100-80gb&tp=4&dp=8');
    const asked = hub.requests.length;
    await fetchId(page, 'Qwen/Qwen2-7B');
    await page.waitForSelector('#import-message[data-state="imported"][data-hub="Qwen/Qwen2-7B"]');
    // The resolve endpoint, then where its redirect leads: nothing else.
    const commit = hub.commitOf('Qwen/Qwen2-7B');
    expect(hub.requests.slice(asked)).toEqual([
      '/Qwen/Qwen2-7B/resolve/main/config.json',
      `/api/resolve-cache/models/Qwen/Qwen2-7B/${commit}/config.json`,
    ]);
    expect(await page.textContent('#hub-fetched')).toContain(`commit ${commit.slice(0, 7)}`);
    // The same numbers as the CLI reading the same file.
    const dir = resolve(ROOT, 'test-results');
    mkdirSync(dir, { recursive: true });
    const path = resolve(dir, 'hub-qwen2-config.json');
    writeFileSync(path, fileOf('Qwen2-7B'));
    const native = JSON.parse(runCli(['--json', '--hf-config', path, '--gpu', 'h100-80gb', '--tp', '4', '--dp', '8']).stdout);
    const expected = Object.fromEntries(native.lines.map((l: { id: string; bytes: number }) => [l.id, l.bytes]));
    expect(await ledgerBytes(page)).toEqual(expected);
    // The link: the fields, and which file at which commit.
    await page.waitForFunction((c) => location.search.includes(`hf_revision=${c}`), commit);
    const link = new URL(page.url());
    expect(link.searchParams.get('hf')).toBe('Qwen/Qwen2-7B');
    expect(await page.getAttribute('#hub-source a', 'href')).toBe(`${HUB}/Qwen/Qwen2-7B/blob/${commit}/config.json`);
    expect(cliResultForQuery(link.search).lines.map((l: { id: string; bytes: number }) => [l.id, l.bytes])).toEqual(
      Object.entries(expected),
    );
    expect(await violations(page)).toEqual([]);

    // Opened again, the link gives the same numbers and the same source, without asking the Hub.
    const before = hub.requests.length;
    await page.goto(link.href);
    await page.waitForSelector('body[data-ready="true"]');
    expect(await ledgerBytes(page)).toEqual(expected);
    expect(await page.textContent('#hub-source')).toContain('config.json of Qwen/Qwen2-7B');
    expect(hub.requests.length).toBe(before);

    // A model field changed: the fields are no longer the file's, and the link stops saying they are.
    await page.click('#group-model summary');
    await page.fill('#f-layers', '30');
    await page.waitForFunction(() => location.search.includes('layers=30'));
    expect(page.url()).not.toContain('hf=');
    expect(await page.isHidden('#hub-source')).toBe(true);
  });

  it('takes a huggingface.co link pasted where a file goes, and a revision', async () => {
    const page = await openRouted('?gpu=h200&mode=inference&tp=1');
    await page.click('.importer summary');
    await page.fill('#import-text', 'https://huggingface.co/openai/gpt-oss-20b/blob/main/config.json');
    await page.click('#import-apply');
    await page.waitForSelector('#import-message[data-state="imported"][data-hub="openai/gpt-oss-20b"]');
    expect(await page.inputValue('#f-expert_weight_dtype')).toBe('mxfp4');
    await page.waitForFunction(() => location.search.includes('hf=openai/gpt-oss-20b'));
    // A pull request's revision, encoded as the Hub encodes it.
    await fetchId(page, 'google/gemma-2-9b@refs/pr/7');
    await page.waitForSelector('#import-message[data-state="imported"][data-hub="google/gemma-2-9b"]');
    expect(hub.requests).toContain('/google/gemma-2-9b/resolve/refs%2Fpr%2F7/config.json');
    expect(await page.inputValue('#f-sliding_window')).toBe('4096');
  });

  it('says what the Hub refused, and leaves the configuration as it was', async () => {
    const page = await openRouted('?model=llama-3.1-8b&tp=2&dp=4');
    await page.waitForFunction(() => location.search.includes('tp=2'));
    const link = page.url();
    const refusals: [string, string, string][] = [
      ['meta-llama/Llama-3.1-8B', 'gated', 'sign in on the Hub, accept its terms'],
      ['nobody/no-such-model', 'missing', 'No public model nobody/no-such-model'],
      ['Qwen/Qwen2-7B@no-such-branch', 'no-revision', 'has no revision “no-such-branch”'],
      ['https://huggingface.co/Qwen/Qwen2-7B/blob/main/text/config.json', 'no-file', 'has no text/config.json'],
    ];
    for (const [id, kind, says] of refusals) {
      await fetchId(page, id);
      await page.waitForSelector(`#import-message[data-state="error"][data-hub-error="${kind}"]`);
      expect(await page.textContent('#import-message')).toContain(says);
      expect(page.url()).toBe(link);
    }
    // Not a Hub id: refused before any request, naming the field and the form it takes.
    const asked = hub.requests.length;
    for (const bad of ['../../etc/passwd', 'https://example.com/Qwen/Qwen2-7B', 'Qwen/Qwen2-7B@x..y', 'a/b/c', 'javascript:alert(1)']) {
      await fetchId(page, bad);
      await page.waitForSelector('#import-message[data-state="error"][data-hub-error="refused"]');
      expect(await page.textContent('#import-message')).toContain('Hub model id:');
    }
    expect(hub.requests.length).toBe(asked);
    expect(await violations(page)).toEqual([]);
    // Chromium logs each refused answer (401, 404) as a console error: the four provoked here are expected.
    const trouble = session.opened!.trouble;
    expect(trouble.filter((t) => /status of 40[14]/.test(t))).toHaveLength(refusals.length);
    trouble.splice(0, trouble.length, ...trouble.filter((t) => !/status of 40[14]/.test(t)));
  });

  it('shows the wait with a Cancel, and says when there is no network', async () => {
    let release = () => {};
    const routing: Routing = { hold: new Promise((done) => (release = done)) };
    const page = await openRouted('', routing);
    await fetchId(page, 'Qwen/Qwen2-7B');
    await page.waitForSelector('#import-message[data-state="fetching"]');
    expect(await page.textContent('#import-message')).toContain('Fetching config.json of Qwen/Qwen2-7B at main from huggingface.co');
    await page.click('#hub-cancel');
    await page.waitForSelector('#import-message[data-hub-error="cancelled"]');
    routing.offline = true;
    release();
    await fetchId(page, 'Qwen/Qwen2-7B');
    await page.waitForSelector('#import-message[data-hub-error="network"]');
    expect(await page.textContent('#import-message')).toContain('Could not reach huggingface.co');
    expect(page.url()).not.toContain('hf=');
    // Chromium logs the request that found no network: provoked here, expected.
    const trouble = session.opened!.trouble;
    trouble.splice(0, trouble.length, ...trouble.filter((t) => !t.includes('ERR_INTERNET_DISCONNECTED')));
  });

  it('a link that names a Hub file but not its fields offers it, and asks nothing unasked', async () => {
    // No route and huggingface.co not allowed: any request to it would be trouble.
    const page = await session.open('?hf=Qwen/Qwen2-7B&hf_revision=main');
    await page.waitForSelector('#import-message[data-state="offered"]');
    expect(await page.inputValue('#hub-id')).toBe('Qwen/Qwen2-7B@main');
    expect(await page.isHidden('#hub-source')).toBe(true);
    // A Hub key that is not a Hub file is a notice of the link, shown nowhere else.
    await session.open('?model=llama-3.1-8b&hf=<img src=x>&hf_revision=main');
    const notices = await session.opened!.page.textContent('#notices');
    expect(notices).toContain('hf: skipped: Hub model id:');
    expect(await session.opened!.page.isHidden('#hub-source')).toBe(true);
  });
});
