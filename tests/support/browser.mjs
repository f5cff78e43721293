// Debian's Chromium driven by playwright-core; never a downloaded browser.
import { chromium } from 'playwright-core';

export const CHROMIUM_PATH = process.env.MEMBUDGET_CHROMIUM ?? '/usr/bin/chromium';

/** @returns {Promise<import('playwright-core').Browser>} */
export function launchChromium() {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-quic',
    ],
  });
}
