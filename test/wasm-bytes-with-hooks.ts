// The cores built with test hooks (assembly/test-hooks.ts, built by scripts/build-core.mjs into
// build/, which the package does not ship), shaped as src/core/wasm-bytes.ts: the hooks projects
// load these in its place (vitest.config.ts HOOKS, test/core-hooks.ts).
import { readFileSync } from 'node:fs';

const base64 = (variant: string) => readFileSync(new URL(`../build/core-hooks.${variant}.wasm`, import.meta.url)).toString('base64');

export const SIMD_WASM_BASE64 = base64('simd');
export const SCALAR_WASM_BASE64 = base64('scalar');
