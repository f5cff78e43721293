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
      // Chromium 156 builds the omnibox's WebUI popup (chrome://omnibox-popup.top-chrome, with ~56 resources of its
      // own) in a renderer of its own for every new browser context, even headless: on a 2-core machine that
      // renderer ran beside each page load measured here and slowed it (a traced cold load's ledger on screen at
      // 480–626 ms with it, 299 ms without). A visitor's browser builds its omnibox once, not per page.
      '--disable-features=WebUIOmniboxPopup,WebUIOmniboxAimPopup,WebUIOmniboxFullPopup',
    ],
  });
}
