// npm run build: the WASM core and the generated modules it implies (scripts/build-core.mjs),
// then esbuild bundles and tsc declarations into dist/.
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { buildCore } from './build-core.mjs';
import { buildWorkerd } from './build-workerd.mjs';
import { buildPlayground } from './playground.mjs';

const run = (cmd, args) => execFileSync(cmd, args, { stdio: 'inherit' });
const bin = (name) => `node_modules/.bin/${name}`;

await buildCore();
rmSync('dist', { recursive: true, force: true });
const entries = JSON.parse(readFileSync('package.json', 'utf8')).buildEntries;
const bundleOptions = {
  bundle: true,
  format: 'esm',
  platform: 'neutral',
  target: 'es2022',
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  external: ['node:*', '@modelcontextprotocol/sdk', '@modelcontextprotocol/sdk/*', 'ajv', 'ajv/*', 're2js', 'jose'],
  legalComments: 'none',
  logLevel: 'warning',
};
const result = await build({ ...bundleOptions, metafile: true, entryPoints: entries, outdir: 'dist' });
// The same entries for Cloudflare Workers (the `workerd` export condition), the core imported
// as a .wasm module (scripts/build-workerd.mjs).
await buildWorkerd(bundleOptions, entries);
// What each entry loads (itself and the chunks it imports statically), raw and gzipped.
const outputs = result.metafile.outputs;
const closure = (file, seen = new Set()) => {
  if (seen.has(file)) return seen;
  seen.add(file);
  for (const i of outputs[file].imports) if (i.kind === 'import-statement' && outputs[i.path]) closure(i.path, seen);
  return seen;
};
const sizes = {};
for (const [file, out] of Object.entries(outputs)) {
  if (!out.entryPoint) continue;
  const files = [...closure(file)];
  const code = Buffer.concat(files.map((f) => readFileSync(f)));
  sizes[file.replace(/^dist\//, '')] = { raw: code.length, gzip: gzipSync(code, { level: 9 }).length, files: files.length };
}
writeFileSync('dist/sizes.json', JSON.stringify(sizes, null, 2) + '\n');
run(bin('tsc'), ['-p', 'tsconfig.build.json']);
// The playground page's bundle, from the browser bundles just built (docs/playground/).
await buildPlayground();
