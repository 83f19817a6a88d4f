// dist/workerd/: the package's entries for Cloudflare Workers (the `workerd` export condition in
// package.json), bundled as the main build is, with src/core/instance-workerd.ts in place of
// src/core/instance.ts: the core is imported as `./core.simd.wasm`, a module Workers compile at
// deploy time, not bytes compiled at run time (refused before the 2025 compatibility dates).
// The .wasm file sits beside every output file that may import it (entries and chunks).
import { copyFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';

const OUT = 'dist/workerd';
const WASM = 'core.simd.wasm';
const INSTANCE = resolve('src/core/instance.ts');
const WORKERD_INSTANCE = resolve('src/core/instance-workerd.ts');

const workerdCore = {
  name: 'workerd-core',
  setup(b) {
    // Every import of the core instance, but instance-workerd.ts's own (types only), takes it.
    b.onResolve({ filter: /instance\.js$/ }, (args) => {
      if (args.importer === WORKERD_INSTANCE) return undefined;
      return resolve(args.resolveDir, args.path.replace(/\.js$/, '.ts')) === INSTANCE ? { path: WORKERD_INSTANCE } : undefined;
    });
    b.onResolve({ filter: /\.wasm$/ }, () => ({ path: `./${WASM}`, external: true }));
  },
};

/** Bundles `entries` (not the CLI: it needs Node) into dist/workerd/ with the imported core. */
export async function buildWorkerd(options, entries) {
  const { cli: _, ...webEntries } = entries;
  await build({ ...options, entryPoints: webEntries, outdir: OUT, plugins: [workerdCore] });
  for (const dir of [OUT, join(OUT, 'chunks')]) copyFileSync(join('build', WASM), join(dir, WASM));
}
