// One way to open the page in a browser test: a fresh context, everything that goes wrong in it recorded
// (uncaught errors, console errors, dialogs, requests to other origins, policy violations), and the page
// opened only once it says it is ready (body[data-ready]) — never after a fixed delay. Each check after an
// interaction waits for the state it expects (a selector, an attribute), as these helpers do.
import type { Browser, BrowserContext, Frame, Page, Worker } from 'playwright-core';

export interface OpenOptions {
  viewport?: { width: number; height: number };
  acceptDownloads?: boolean;
  /** Grant clipboard access for these origins. */
  clipboardOrigin?: string;
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
  if (options.clipboardOrigin) await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: options.clipboardOrigin });
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
