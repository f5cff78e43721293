// One way to open the page in a browser test: a fresh context, everything that goes wrong in it recorded
// (uncaught errors, console errors, dialogs, requests to other origins, policy violations), and the page
// opened only once it says it is ready (body[data-ready]) — never after a fixed delay. Each check after an
// interaction waits for the state it expects (a selector, an attribute), as these helpers do.
//
// pageSession() is the browser test files' shared lifecycle: one Chromium and one server of dist/ per file, the
// page of each test required to have had no trouble (and navigated for the next test where its context is
// untouched), and timeouts that wait for states on a busy machine instead of failing at a fixed ceiling.
import type { Browser, BrowserContext, Frame, Page, Worker } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect, vi } from 'vitest';
import { launchChromium } from './browser.mjs';
import { DIST } from './paths';
import { serveStatic, type StaticServer } from './server.mjs';

/**
 * How long a browser test, a hook or one wait for a state may take. Nothing here is a delay: each wait ends as
 * soon as its state is there. The limits are generous because two cores shared with a compiler (or stress-ng)
 * make a page load and the engine's first answer many times slower than on an idle machine, and a test should
 * fail on a wrong state, not on a slow one.
 */
export const BROWSER_TEST_TIMEOUT_MS = 600_000;
export const BROWSER_WAIT_TIMEOUT_MS = 180_000;

/** The file's tests and hooks get BROWSER_TEST_TIMEOUT_MS instead of vitest.config.ts's 30 s (meant for Node). */
export function browserTimeouts(): void {
  vi.setConfig({ testTimeout: BROWSER_TEST_TIMEOUT_MS, hookTimeout: BROWSER_TEST_TIMEOUT_MS });
}

export interface OpenOptions {
  viewport?: { width: number; height: number };
  acceptDownloads?: boolean;
  /** Grant clipboard access for this origin. */
  clipboardOrigin?: string;
  /** Grant clipboard access for the origin of the page opened (an http one). */
  clipboard?: boolean;
  /** Origins requests may go to besides data: and blob: (default: the page's own). */
  allowedOrigins?: string[];
  /** Also count console warnings as trouble. */
  consoleWarnings?: boolean;
  /** Wait for this selector instead of body[data-ready="true"] (a page that is not the calculator). */
  readySelector?: string;
  /** pageSession: a context of this test's own, never reused (a test that changes its context, e.g. routes). */
  ownContext?: boolean;
}

export interface Opened {
  page: Page;
  context: BrowserContext;
  /** What went wrong: "page error: …", "console error: …", "dialog: …", "request to …". */
  trouble: string[];
  /** Web Workers the page started, each with a promise that resolves once it has closed. */
  workers: { worker: Worker; closed: Promise<void> }[];
  close(): Promise<void>;
}

export async function openPage(browser: Browser, url: string, options: OpenOptions = {}): Promise<Opened> {
  const context = await browser.newContext({
    viewport: options.viewport ?? { width: 1400, height: 1000 },
    acceptDownloads: options.acceptDownloads ?? false,
  });
  // Every wait (waitForSelector, waitForFunction, an action's auto-wait) ends when its state is there, or fails
  // after this long.
  context.setDefaultTimeout(BROWSER_WAIT_TIMEOUT_MS);
  const clipboardOrigin = options.clipboardOrigin ?? (options.clipboard ? new URL(url).origin : undefined);
  if (clipboardOrigin) await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: clipboardOrigin });
  // Every frame records the Content-Security-Policy violations it sees (read them with violations()).
  await context.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (event) => {
      const w = window as unknown as { __violations?: string[] };
      (w.__violations ??= []).push(`${event.effectiveDirective} blocked ${event.blockedURI || 'inline'}`);
    });
  });
  const trouble: string[] = [];
  const workers: Opened['workers'] = [];
  const allowed = options.allowedOrigins ?? [new URL(url).origin];
  context.on('request', (request) => {
    const target = request.url();
    if (!allowed.some((origin) => target.startsWith(origin)) && !target.startsWith('data:') && !target.startsWith('blob:'))
      trouble.push(`request to ${target}`);
  });
  const page = await context.newPage();
  page.on('pageerror', (error) => trouble.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error' || (options.consoleWarnings && message.type() === 'warning'))
      trouble.push(`console ${message.type()}: ${message.text()}`);
  });
  page.on('dialog', (dialog) => {
    trouble.push(`dialog: ${dialog.message()}`);
    void dialog.dismiss();
  });
  page.on('worker', (worker) => workers.push({ worker, closed: new Promise((resolve) => worker.once('close', () => resolve())) }));
  await page.goto(url);
  await page.waitForSelector(options.readySelector ?? 'body[data-ready="true"]');
  return { page, context, trouble, workers, close: () => context.close() };
}

/**
 * The page of `opened` navigated to `url` as openPage would open it: what it recorded is cleared, the viewport and
 * the media are the options', and it is ready once it says so. The context stays, with what openPage set on it.
 */
export async function reopenPage(opened: Opened, url: string, options: OpenOptions = {}): Promise<void> {
  opened.trouble.length = 0;
  opened.workers.length = 0;
  const viewport = options.viewport ?? { width: 1400, height: 1000 };
  const size = opened.page.viewportSize();
  if (size?.width !== viewport.width || size?.height !== viewport.height) await opened.page.setViewportSize(viewport);
  await opened.page.emulateMedia({ media: null, colorScheme: 'light' }); // a new context's
  await opened.page.goto(url);
  await opened.page.waitForSelector(options.readySelector ?? 'body[data-ready="true"]');
}

/** The policy violations a frame recorded. */
export async function violations(frame: Page | Frame): Promise<string[]> {
  return frame.evaluate(() => (window as unknown as { __violations?: string[] }).__violations ?? []);
}

type ServeOptions = Parameters<typeof serveStatic>[2];

export interface SessionOptions {
  /** Serve dist/ under this path for the whole file (session.server); omitted: the file serves what it needs. */
  basePath?: string;
  serve?: ServeOptions;
  /** Options for every page the session opens; each open may add to them. */
  page?: OpenOptions;
}

export interface PageSession {
  readonly browser: Browser;
  /** dist/ under SessionOptions.basePath. */
  readonly server: StaticServer;
  /** The page opened last, until it is closed (by the next open, or after the test). */
  readonly opened: Opened | undefined;
  /**
   * Opens `target`, a query or a path under the server's URL ('', '?tp=4', 'membudget.html?embed=1') or an absolute
   * URL, once it is ready. The page opened before must have had no trouble; where its context is as openPage left
   * it (the same origin and options, one page, not ownContext) that page is navigated (reopenPage) instead of a new
   * context started, which skips a renderer's start and its cold caches; otherwise a fresh context.
   */
  open(target?: string, options?: OpenOptions): Promise<Page>;
  /** Another server of dist/ (a host's headers, pages around the calculator), closed after the file. */
  serve(basePath: string, options?: ServeOptions): Promise<StaticServer>;
}

/**
 * The lifecycle every browser test file shares: Chromium launched once before the file's tests (not per test) and
 * closed after them, dist/ served, each test's page required after it to have had no trouble (console errors, page
 * errors, dialogs, requests to other origins), and the file's timeouts (browserTimeouts). The page holds no state
 * outside its document (no storage, cookies or service worker; the link is its state), so a page whose context
 * the test left as it was serves the next test's open by navigation, with what it recorded cleared.
 */
export function pageSession(options: SessionOptions = {}): PageSession {
  browserTimeouts();
  let browser: Browser | undefined;
  let server: StaticServer | undefined;
  // The page the test at hand opened last, and the one kept from an earlier test for the next open to navigate.
  let opened: { opened: Opened; key: string; own: boolean } | undefined;
  let kept: { opened: Opened; key: string } | undefined;
  const servers: StaticServer[] = [];

  const serve = async (basePath: string, serveOptions?: ServeOptions) => {
    const started = await serveStatic(DIST, basePath, serveOptions);
    servers.push(started);
    return started;
  };

  // What fixes a context: its origin, what openPage set on it, and what its request check allows.
  const contextKey = (url: string, o: OpenOptions) =>
    JSON.stringify([new URL(url).origin, o.acceptDownloads, o.clipboardOrigin, o.clipboard, o.allowedOrigins, o.consoleWarnings]);

  // Done with the page opened last: kept for the next open if its context is as openPage left it (one page, no
  // trouble, not a test's own), closed otherwise. What went wrong in it fails the test that opened it.
  const release = async () => {
    const last = opened;
    opened = undefined;
    if (!last) return;
    const seen = [...last.opened.trouble];
    if (!last.own && seen.length === 0 && !last.opened.page.isClosed() && last.opened.context.pages().length === 1) kept = last;
    else await last.opened.close();
    expect(seen, 'console errors, page errors, dialogs or requests to other origins').toEqual([]);
  };

  beforeAll(async () => {
    browser = await launchChromium();
    if (options.basePath !== undefined) server = await serve(options.basePath, options.serve);
  });
  afterEach(release);
  afterAll(async () => {
    await opened?.opened.close();
    await kept?.opened.close();
    await browser?.close();
    for (const started of servers) await started.close();
  });

  return {
    get browser() {
      if (!browser) throw new Error('pageSession: Chromium is not running (outside a test?)');
      return browser;
    },
    get server() {
      if (!server) throw new Error('pageSession: no server (SessionOptions.basePath)');
      return server;
    },
    get opened() {
      return opened?.opened;
    },
    async open(target = '', openOptions = {}) {
      await release();
      const url = /^[a-z]+:/.test(target) ? target : `${this.server.url}${target}`;
      const merged = { ...options.page, ...openOptions };
      const key = contextKey(url, merged);
      const own = merged.ownContext === true;
      const reuse = kept && kept.key === key && !own ? kept : undefined;
      if (!reuse) await kept?.opened.close();
      kept = undefined;
      if (reuse) {
        opened = { opened: reuse.opened, key, own };
        await reopenPage(reuse.opened, url, merged);
      } else {
        opened = { opened: await openPage(this.browser, url, merged), key, own };
      }
      return opened.opened.page;
    },
    serve,
  };
}
