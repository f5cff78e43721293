// Safe to link to and to embed: the built page's Content-Security-Policy (site and single file), the page
// working under it with no violation, the policy actually refusing what it should (another origin, an HTML
// string in a DOM sink), and ?embed=1 inside a sandboxed iframe on a wiki-like page.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Frame, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { cliLineBytes } from '../support/cli';
import { DIST, FIXTURES, fixture } from '../support/paths';
import { pageSession, violations, type PageSession } from '../support/page';
import type { StaticServer } from '../support/server.mjs';

const BASE_PATH = '/wiki/tools/membudget/';
// No server for the whole file: each test serves dist/ with the headers and host pages it needs.
const session = pageSession({ page: { viewport: { width: 1200, height: 900 } } });

function serve(options: Parameters<PageSession['serve']>[1] = {}): Promise<StaticServer> {
  return session.serve(BASE_PATH, options);
}

// The page (or a host page around it) under the shared helper: every frame records its policy violations, and
// any request that leaves the origins the test allows, console error or uncaught error is trouble.
function open(url: string, origins: string[], readySelector?: string): Promise<Page> {
  return session.open(url, { allowedOrigins: origins, readySelector });
}

function policyOf(html: string): Map<string, string[]> {
  const metas = [...html.matchAll(/<meta\s+http-equiv="Content-Security-Policy"\s+content="([^"]*)"/g)];
  expect(metas).toHaveLength(1);
  return new Map(
    metas[0][1]
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .map(([name, ...sources]) => [name, sources]),
  );
}

async function ledgerRows(frame: Page | Frame): Promise<Record<string, number>> {
  const rows = await frame.$$eval('#ledger tr[data-line]', (trs) =>
    trs.map((tr) => [tr.getAttribute('data-line'), tr.getAttribute('data-bytes')]),
  );
  return Object.fromEntries(rows.map(([id, bytes]) => [id, Number(bytes)]));
}

describe('the Content-Security-Policy of dist/index.html', () => {
  const html = readFileSync(resolve(DIST, 'index.html'), 'utf8');

  it('comes before every script and stylesheet, and allows only the page’s own files', () => {
    const head = html.slice(html.indexOf('<head>'), html.indexOf('</head>'));
    expect(head.indexOf('Content-Security-Policy')).toBeLessThan(head.search(/<script|<link rel="stylesheet"|<link rel="preload"/));
    const policy = policyOf(html);
    expect(policy.get('default-src')).toEqual(["'none'"]);
    expect(policy.get('script-src')).toEqual(["'self'", "'wasm-unsafe-eval'"]);
    expect(policy.get('style-src')).toEqual(["'self'"]);
    // Its own files, and the Hub for a model's config.json that the user asks for by its id (web/src/hub.ts).
    expect(policy.get('connect-src')).toEqual(["'self'", 'https://huggingface.co']);
    expect(policy.get('require-trusted-types-for')).toEqual(["'script'"]);
    expect(policy.get('base-uri')).toEqual(["'none'"]);
    // No other origin anywhere in the policy, and nothing that would let inline code or eval run.
    expect([...policy.values()].flat().filter((s) => /^(https?:|\*|'unsafe-inline'|'unsafe-eval'|'unsafe-hashes')/.test(s))).toEqual([
      'https://huggingface.co',
    ]);
  });

  it('has no inline script, inline style or event-handler attribute for it to allow', () => {
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.length).toBeGreaterThan(0);
    for (const [, attributes, body] of scripts) {
      expect(attributes).toMatch(/\bsrc="\.\/assets\/[^"]+\.js"/);
      expect(body.trim()).toBe('');
    }
    expect(html).not.toMatch(/<style\b|\sstyle="|\son[a-z]+=/i);
  });
});

describe('the page under its policy', () => {
  it('computes, takes edits, imports and exports with no violation, and the policy refuses what it should', async () => {
    const server = await serve();
    const page = await open(`${server.url}?model=llama-3.1-8b&tp=2&dp=4`, [server.origin]);
    expect(await ledgerRows(page)).toEqual(cliLineBytes({ model: 'llama-3.1-8b', tp: 2, dp: 4 }));
    await page.fill('#f-pp', '2');
    await page.waitForFunction(() => location.search.includes('pp=2'));
    await page.click('#tensors summary');
    await page.click('#compare summary');
    await page.click('.importer summary');
    const qwen = fixture('hf-configs').cases.find((c: { name: string }) => c.name === 'Qwen2-7B');
    await page.fill('#import-text', JSON.stringify(qwen.config));
    await page.click('#import-apply');
    await page.waitForFunction(() => location.search.includes('model=custom'));
    // The TOML, YAML and shell parsers load on demand in the worker, under the same policy.
    for (const file of ['torchtitan/llama3_8b.toml', 'torchtune/llama3_1_70B_full.yaml', 'megatron/train_gpt3_175b_distributed.sh']) {
      await page.fill('#import-text', readFileSync(resolve(FIXTURES, 'import', file), 'utf8'));
      await page.click('#import-apply');
      await page.waitForSelector(`#import-message[data-state="imported"][data-format="${file.split('/')[0]}"]`);
    }
    await page.click('#copy-as');
    await page.waitForSelector('#exported[data-format]');
    await Promise.all([page.waitForEvent('download'), page.click('#download-json')]);
    expect(await violations(page)).toEqual([]);

    // Another origin is refused by connect-src, before any request is made.
    const refusals = [
      page.waitForEvent('console', (m) => m.text().includes('violates the following Content Security Policy directive: "connect-src')),
      page.waitForEvent('console', (m) => m.text().includes('TrustedHTML')),
    ];
    const foreign = await page.evaluate(() =>
      fetch('http://127.0.0.2:9/x').then(
        () => 'loaded',
        () => 'refused',
      ),
    );
    expect(foreign).toBe('refused');
    // A string in an HTML sink is refused by Trusted Types, whatever code tries it.
    const sink = await page.evaluate(() => {
      try {
        document.body.insertAdjacentHTML('beforeend', '<img src=x>');
        return 'inserted';
      } catch (error) {
        return (error as Error).name;
      }
    });
    expect(sink).toBe('TypeError');
    expect(await violations(page)).toEqual([
      'connect-src blocked http://127.0.0.2:9/x',
      'require-trusted-types-for blocked trusted-types-sink',
    ]);
    await Promise.all(refusals);
    // The two refusals just provoked are expected.
    const trouble = session.opened!.trouble;
    trouble.splice(0, trouble.length, ...trouble.filter((t) => !/127\.0\.0\.2:9|TrustedHTML/.test(t)));
  });
});

describe('the single file dist/membudget.html', () => {
  const html = readFileSync(resolve(DIST, 'membudget.html'), 'utf8');

  it('has its own policy: the inline script and style by hash, the wasm as data:, nothing else', () => {
    const policy = policyOf(html);
    expect(policy.get('default-src')).toEqual(["'none'"]);
    expect(policy.get('script-src')!.filter((s) => !s.startsWith("'sha256-"))).toEqual(["'wasm-unsafe-eval'"]);
    expect(policy.get('script-src')!.length).toBe(2);
    expect(policy.get('style-src')!.every((s) => s.startsWith("'sha256-"))).toBe(true);
    expect(policy.get('connect-src')).toEqual(['data:', 'https://huggingface.co']);
    expect(policy.get('require-trusted-types-for')).toEqual(["'script'"]);
    expect(html).not.toMatch(/<script\b[^>]*\bsrc=|<link\b[^>]*\bhref="(?!data:)/);
  });

  it('opens from disk and works under it', async () => {
    const page = await open(`${pathToFileURL(resolve(DIST, 'membudget.html')).href}?pp=2&mb=2`, ['file:']);
    expect(await ledgerRows(page)).toEqual(cliLineBytes({ pp: 2, mb: 2 }));
    await page.fill('#f-tp', '4');
    await page.waitForFunction(() => location.search.includes('tp=4'));
    expect(await ledgerRows(page)).toEqual(cliLineBytes({ pp: 2, mb: 2, tp: 4 }));
    expect(await violations(page)).toEqual([]);
  });
});

describe('?embed=1 in a sandboxed iframe (allow-scripts only: an opaque origin, no cookies, no parent access)', () => {
  const wiki = (src: string) =>
    `<!doctype html><html><head><title>Wiki</title><link rel="icon" href="data:,"></head><body><h1>Design doc</h1>` +
    `<iframe id="embed" sandbox="allow-scripts" src="${src}" width="820" height="640" title="membudget"></iframe></body></html>`;

  async function embedded(server: StaticServer, path: string): Promise<{ page: Page; frame: Frame }> {
    const page = await open(`${server.origin}${path}`, [server.origin], '#embed');
    const handle = await page.waitForSelector('#embed');
    const frame = (await handle.contentFrame())!;
    await frame.waitForSelector('#verdict strong');
    return { page, frame };
  }

  it('the site build renders the ledger, where the host lets an opaque origin load its files (CORS)', async () => {
    const server = await serve({
      headers: { 'Access-Control-Allow-Origin': '*' },
      pages: { '/wiki/design-doc.html': wiki(`${BASE_PATH}?embed=1&pp=2`) },
    });
    const { page, frame } = await embedded(server, '/wiki/design-doc.html');
    expect(await ledgerRows(frame)).toEqual(cliLineBytes({ pp: 2 }));
    expect(await frame.isVisible('#config-form')).toBe(false);
    expect(await frame.evaluate(() => origin)).toBe('null'); // sandboxed: no access to the wiki's origin
    expect(await violations(frame)).toEqual([]);
    expect(await violations(page)).toEqual([]);
  });

  it('the single file renders the ledger with no header from the host at all', async () => {
    const server = await serve({ pages: { '/wiki/design-doc.html': wiki(`${BASE_PATH}membudget.html?embed=1&tp=4`) } });
    const { frame } = await embedded(server, '/wiki/design-doc.html');
    expect(await ledgerRows(frame)).toEqual(cliLineBytes({ tp: 4 }));
    expect(await frame.evaluate(() => origin)).toBe('null');
    expect(await violations(frame)).toEqual([]);
  });
});
