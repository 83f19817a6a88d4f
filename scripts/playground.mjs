// The playground (docs/playground/): `buildPlayground()` bundles the package's browser bundles
// (dist/index.js and dist/stream.js, so it runs after the build) into one file beside the page,
// docs/playground/codec.js (generated, ignored by git); `npm run playground` builds it and serves
// the folder as plain files on a loopback port.
import { createReadStream, existsSync } from 'node:fs';
import { createServer } from 'node:http';
import { dirname, extname, join, normalize, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const PLAYGROUND = join(ROOT, 'docs', 'playground');

export async function buildPlayground() {
  if (!existsSync(join(ROOT, 'dist', 'index.js'))) throw new Error('playground: dist/ is missing; run npm run build first');
  await build({
    stdin: {
      contents: "export * from './dist/index.js';\nexport { createDecodeStream, createEncodeStream } from './dist/stream.js';\n",
      resolveDir: ROOT,
      loader: 'js',
    },
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    legalComments: 'none',
    outfile: join(PLAYGROUND, 'codec.js'),
    // (The bundles' bare chunk imports are dropped as side-effect free, as the package says.)
    logLevel: 'error',
  });
}

const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.css': 'text/css', '.png': 'image/png' };

/** Serves the playground folder on 127.0.0.1:`port` (0: any); resolves with the server. */
export function servePlayground(port = 0) {
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const file = normalize(join(PLAYGROUND, path === '/' ? 'index.html' : path));
    if (!file.startsWith(PLAYGROUND) || !existsSync(file)) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
    createReadStream(file).pipe(res);
  });
  return new Promise((resolveServer) => server.listen(port, '127.0.0.1', () => resolveServer(server)));
}

/** Saves a picture of the page with an example in it (for the README), in Debian's Chromium. */
async function screenshot(file) {
  const { chromium } = await import('playwright-core');
  const server = await servePlayground(0);
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
  });
  try {
    const page = await browser.newPage({ viewport: { width: 1100, height: 720 } });
    await page.goto(`http://127.0.0.1:${server.address().port}/`);
    await page.fill(
      '#input',
      'Opened Qwen (com.alibaba.dingtalk) at ~/Library/DashScope; Tongyi is ready.\nA character split at a chunk boundary: \ufffd',
    );
    await page.waitForTimeout(300);
    await page.hover('#output mark');
    await page.screenshot({ path: file, fullPage: true });
  } finally {
    await browser.close();
    server.close();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await buildPlayground();
  const at = process.argv.indexOf('--screenshot');
  if (at > 0) await screenshot(resolve(process.argv[at + 1]));
  else {
    const server = await servePlayground(Number(process.env.PORT ?? 8787));
    console.log(`playground: http://127.0.0.1:${server.address().port}/ (Ctrl-C to stop)`);
  }
}
