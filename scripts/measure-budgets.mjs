#!/usr/bin/env node
// Measures the page's budgets on this machine and prints them as Markdown for docs/speed.md: time from navigation
// to the ledger on screen (median of 10 cold loads in Debian's Chromium) as a ratio to an empty page loaded beside
// it, the time one field change takes to re-render (median of 50), and the transfer sizes (gzipped).
// Run after `npm run build`: node scripts/measure-budgets.mjs
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium } from '../tests/support/browser.mjs';
import { serveStatic } from '../tests/support/server.mjs';
import { BUDGETS, pageSizes } from '../tests/support/sizes.mjs';

/** Issue 31's goals: what the user waits for, against what this machine can do at all. */
const GOALS = { ledgerToFloor: 2, fieldChangeMs: 3, wasmGzipBytes: 85_000 };
const dist = resolve(fileURLToPath(import.meta.url), '../../dist');
/** @param {number[]} values */
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

const sizes = pageSizes(dist);
const server = await serveStatic(dist, '/');
// The floor: a page with one line of text and one module script that sets the same marks, served the same way.
// What membudget adds is the difference, and the goal is a ratio to it (issue 31: the ledger on screen within 2×
// an empty page), so the two are loaded side by side, alternately, in one run: a busy machine slows both.
const floorDir = mkdtempSync(join(tmpdir(), 'membudget-floor-'));
writeFileSync(
  join(floorDir, 'index.html'),
  '<!doctype html><meta charset="utf-8"><script type="module" src="./a.js"></script><p>floor</p>',
);
writeFileSync(
  join(floorDir, 'a.js'),
  "performance.mark('membudget-ledger-rendered'); requestAnimationFrame(() => setTimeout(() => performance.mark('membudget-ledger-on-screen'), 0));",
);
const floorServer = await serveStatic(floorDir, '/');
const browser = await launchChromium();
// How the page says its ledger is on screen, without the harness touching the page: waiting with
// page.waitForFunction evaluates Playwright's injected script (about 120 ms of the main thread in a trace of a cold
// load here) while the page is still loading, which delayed the very mark it waited for. A performance observer,
// installed before the page's own scripts, logs the mark's name instead, and the harness waits for that message.
const ON_SCREEN = 'membudget-ledger-on-screen';
const announceOnScreen = () =>
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) if (entry.name === 'membudget-ledger-on-screen') console.debug(entry.name);
  }).observe({ type: 'mark' });
const loads = [];
const domLoads = [];
const paints = [];
const floors = [];
for (let i = 0; i < 11; i++) {
  const context = await browser.newContext(); // a fresh cache each time: a cold load
  const page = await context.newPage();
  // Largest Contentful Paint: when the browser presented the verdict's pixels.
  const onScreen = page.waitForEvent('console', (message) => message.text() === ON_SCREEN);
  await page.addInitScript(announceOnScreen);
  await page.addInitScript(() => {
    /** @type {any} */ (window).__lcp = 0;
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) /** @type {any} */ (window).__lcp = /** @type {any} */ (entry).renderTime || entry.startTime;
    }).observe({ type: 'largest-contentful-paint', buffered: true });
  });
  await page.goto(server.url);
  await onScreen;
  // LCP is reported once the frame is presented: wait for it rather than for a fixed time.
  await page.waitForFunction(() => /** @type {any} */ (window).__lcp > 0);
  const [dom, screen, lcp] = await page.evaluate(() => [
    performance.getEntriesByName('membudget-ledger-rendered')[0].startTime,
    performance.getEntriesByName('membudget-ledger-on-screen')[0].startTime,
    /** @type {any} */ (window).__lcp,
  ]);
  await context.close();
  const floorContext = await browser.newContext();
  const floorPage = await floorContext.newPage();
  const floorOnScreen = floorPage.waitForEvent('console', (message) => message.text() === ON_SCREEN);
  await floorPage.addInitScript(announceOnScreen);
  await floorPage.goto(floorServer.url);
  await floorOnScreen;
  const floorAt = await floorPage.evaluate(() => performance.getEntriesByName('membudget-ledger-on-screen')[0].startTime);
  await floorContext.close();
  if (i > 0) {
    // the first start of Chromium pays for its own warm-up
    domLoads.push(dom);
    loads.push(screen);
    paints.push(lcp);
    floors.push(floorAt);
  }
}
await floorServer.close();
rmSync(floorDir, { recursive: true });

const context = await browser.newContext();
const page = await context.newPage();
await page.goto(server.url);
await page.waitForSelector('body[data-ready="true"]'); // the form is built after the ledger's first frame
const renders = await page.evaluate(() => {
  const input = /** @type {HTMLInputElement} */ (document.getElementById('f-mb'));
  const times = [];
  for (let i = 0; i < 51; i++) {
    input.value = String(1 + (i % 8));
    const start = performance.now();
    input.dispatchEvent(new Event('input'));
    void document.body.offsetHeight; // include style and layout, not only the DOM update
    times.push(performance.now() - start);
  }
  return times.slice(1);
});
await browser.close();
await server.close();

const kb = (/** @type {number} */ bytes) => `${(bytes / 1000).toFixed(1)} KB`;
const cpu = cpus()[0]?.model ?? 'unknown CPU';
/** @param {boolean} ok */
const met = (ok) => (ok ? 'met' : 'not met');
const ledgerRatio = median(loads) / median(floors);
const change = median(renders);
console.log(`Measured ${new Date().toISOString().slice(0, 10)} on ${cpus().length} × ${cpu}, Chromium at /usr/bin/chromium.\n`);
console.log('| what the user waits for | goal | measured | |');
console.log('|---|---|---|---|');
console.log(
  `| navigation → ledger on screen, median of 10 cold loads, ÷ an empty page with one module script loaded beside it | ≤ ${GOALS.ledgerToFloor}× | ${ledgerRatio.toFixed(2)}× (${median(loads).toFixed(1)} ms ÷ ${median(floors).toFixed(1)} ms; in the DOM at ${median(domLoads).toFixed(1)} ms; presented, by Largest Contentful Paint, at ${median(paints).toFixed(1)} ms) | ${met(ledgerRatio <= GOALS.ledgerToFloor)} |`,
);
console.log(
  `| field change → re-rendered (incl. layout), median of 50 | ≤ ${GOALS.fieldChangeMs} ms | ${change.toFixed(2)} ms | ${met(change <= GOALS.fieldChangeMs)} |`,
);
console.log(
  `| the page's wasm, gzipped (what the first ledger compiles: its code; its data is the next row) | ≤ ${kb(GOALS.wasmGzipBytes)} | ${kb(sizes.wasmGzipBytes)} (budget ${kb(BUDGETS.wasmGzipBytes)}) | ${met(sizes.wasmGzipBytes <= GOALS.wasmGzipBytes)} |`,
);
console.log(
  `| the wasm's data file (its text and tables, fetched beside it and copied into its memory), gzipped | ≤ ${kb(BUDGETS.wasmDataGzipBytes)} | ${kb(sizes.wasmDataGzipBytes)} | ${met(sizes.wasmDataGzipBytes <= BUDGETS.wasmDataGzipBytes)} |`,
);
console.log(
  `| page transfer, gzipped (${sizes.files.map((f) => f.name.replace(/-[A-Za-z0-9_-]{8}\./, '.')).join(', ')}) | ≤ ${kb(BUDGETS.pageGzipBytes)} | ${kb(sizes.pageGzipBytes)} | ${met(sizes.pageGzipBytes <= BUDGETS.pageGzipBytes)} |`,
);
console.log('\nFiles:');
for (const f of sizes.files) console.log(`- ${f.name}: ${f.bytes} B, ${f.gzipBytes} B gzipped`);
