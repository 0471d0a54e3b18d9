import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

/** Debian's Chromium, which playwright-core drives (it downloads no browser). */
export const CHROMIUM = '/usr/bin/chromium';

/**
 * Chromium for the browser tests, headless, with nothing that reaches the network on its own
 * (background updates, sync): the tests' pages are the only traffic. No Chromium is a failure,
 * not a skip: the browser is part of what these tests check. `extra` adds flags.
 */
export async function launchChromium(extra: string[] = []): Promise<Browser> {
  if (!existsSync(CHROMIUM))
    throw new Error(`Chromium is not installed at ${CHROMIUM} (apt-get install chromium): the browser tests need it.`);
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      ...extra,
    ],
  });
}
