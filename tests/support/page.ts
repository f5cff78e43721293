// One way to open the page in a browser test: a fresh context, everything that goes wrong in it recorded
// (uncaught errors, console errors, dialogs, requests to other origins, policy violations), and the page
// opened only once it says it is ready (body[data-ready]) — never after a fixed delay. Each check after an
// interaction waits for the state it expects (a selector, an attribute), as these helpers do.
//
// pageSession() is the browser test files' shared lifecycle: one Chromium and one server of dist/ per file, the
// page of each test closed after it and required to have had no trouble, and timeouts that wait for states on a
// busy machine instead of failing at a fixed ceiling.
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
   * URL, in a fresh context, once it is ready; the page opened before is closed first, and must have had no trouble.
   */
  open(target?: string, options?: OpenOptions): Promise<Page>;
  /** Another server of dist/ (a host's headers, pages around the calculator), closed after the file. */
  serve(basePath: string, options?: ServeOptions): Promise<StaticServer>;
}

/**
 * The lifecycle every browser test file shares: Chromium launched once before the file's tests (not per test) and
 * closed after them, dist/ served, each test's page closed after it with its trouble (console errors, page
 * errors, dialogs, requests to other origins) required to be none, and the file's timeouts (browserTimeouts).
 */
export function pageSession(options: SessionOptions = {}): PageSession {
  browserTimeouts();
  let browser: Browser | undefined;
  let server: StaticServer | undefined;
  let opened: Opened | undefined;
  const servers: StaticServer[] = [];

  const serve = async (basePath: string, serveOptions?: ServeOptions) => {
    const started = await serveStatic(DIST, basePath, serveOptions);
    servers.push(started);
    return started;
  };

  // Closes the page opened last; what went wrong in it fails the test that opened it.
  const closeOpened = async () => {
    const last = opened;
    opened = undefined;
    if (!last) return;
    const seen = [...last.trouble];
    await last.close();
    expect(seen, 'console errors, page errors, dialogs or requests to other origins').toEqual([]);
  };

  beforeAll(async () => {
    browser = await launchChromium();
    if (options.basePath !== undefined) server = await serve(options.basePath, options.serve);
  });
  afterEach(closeOpened);
  afterAll(async () => {
    await opened?.close();
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
      return opened;
    },
    async open(target = '', openOptions = {}) {
      await closeOpened();
      const url = /^[a-z]+:/.test(target) ? target : `${this.server.url}${target}`;
      opened = await openPage(this.browser, url, { ...options.page, ...openOptions });
      return opened.page;
    },
    serve,
  };
}
