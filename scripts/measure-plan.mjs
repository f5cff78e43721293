// The planner in Chromium (README "Speed"): from a click on Search to the table, for Llama-3.1-405B on
// 16,384 GPUs, five cold page loads (each starts its worker and compiles the planner's module).
// Usage: node scripts/measure-plan.mjs  (after npm run build)
import { resolve } from 'node:path';
import { launchChromium } from '../tests/support/browser.mjs';
import { serveStatic } from '../tests/support/server.mjs';

const server = await serveStatic(resolve(import.meta.dirname, '../dist'), '/');
const browser = await launchChromium();
/** @type {number[]} */
const times = [];
try {
  for (let run = 0; run < 5; run++) {
    const page = await browser.newPage();
    await page.goto(`${server.url}?model=llama-3.1-405b&gpu=h100-80gb&tp=8&pp=16&dp=128&seq=8192&microbatches=16`);
    await page.waitForSelector('body[data-ready="true"]');
    await page.click('#planner summary');
    await page.fill('#plan-gpus', '16384');
    await page.fill('#plan-batch', '2048');
    await page.click('#plan-run');
    await page.waitForFunction(() => document.body.dataset.planMs, undefined, { timeout: 60_000 });
    times.push(Number(await page.evaluate(() => document.body.dataset.planMs)));
    if (run === 0) console.log(await page.textContent('#plan-status'));
    await page.close();
  }
} finally {
  await browser.close();
  await server.close();
}
const sorted = [...times].sort((a, b) => a - b);
console.log(`click → table, ms: ${times.join(', ')} (median ${sorted[2]})`);
