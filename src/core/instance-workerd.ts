// The core on Cloudflare Workers (the package's `workerd` export condition): imported as a
// compiled WebAssembly module, the way Workers load Wasm (wrangler does it for a .wasm import;
// a workerd config lists it as a `wasm` module), so a Worker starts without compiling bytes at
// run time, which Workers refuse before the 2025 compatibility dates ("Wasm code generation
// disallowed by embedder"). Workers have WebAssembly SIMD: only that build ships here. The
// build (scripts/build.mjs) puts this module in place of instance.ts for dist/workerd/.

// @ts-expect-error (a .wasm module: a WebAssembly.Module where Workers load it)
import simdModule from './core.simd.wasm';
import type { CoreExports } from './instance.js';

export type { CoreExports };
export const coreVariant: 'simd' | 'scalar' = 'simd';
export const core = new WebAssembly.Instance(simdModule as WebAssembly.Module, {}).exports as unknown as CoreExports;
