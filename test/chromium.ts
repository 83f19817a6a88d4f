// Debian's Chromium (never a downloaded browser), headless, started as this machine allows:
// without the background-networking flags it tries hosts the closed network refuses.
import { type Browser, chromium } from 'playwright-core';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

export async function launchChromium(): Promise<Browser> {
  try {
    return await chromium.launch({ executablePath: CHROMIUM, args: FLAGS, headless: true });
  } catch (e) {
    throw new Error(
      `Chromium could not start from ${CHROMIUM} (install Debian's chromium; .ci/run does): ${(e as Error).message.split('\n')[0]}`,
    );
  }
}
