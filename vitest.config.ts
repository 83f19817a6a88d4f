import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// Every test runs against both builds of the WASM core: SIMD (the default) and scalar
// (what engines without WebAssembly SIMD get). The browser test loads the built bundle in
// Chromium, which picks its own variant, so it runs once.
export default defineConfig({
  test: {
    // A worker per core (vitest's default leaves one idle): many tests wait on child processes
    // and sockets, and the complexity tests count CPU time, not waiting (test/scaling.ts).
    maxWorkers: availableParallelism(),
    // Long fuzzing (npm run fuzz) raises the run counts; give it time.
    testTimeout: process.env.FUZZ_RUNS ? 900_000 : 60_000,
    // fast-check's global limits (a failing or hanging property fails in seconds, not minutes).
    setupFiles: ['test/setup-fast-check.ts'],
    projects: [
      { extends: true, test: { name: 'simd', include: ['test/**/*.test.ts'], env: { MCP_PAYLOAD_CODEC_WASM: 'simd' } } },
      {
        extends: true,
        test: {
          name: 'scalar',
          include: ['test/**/*.test.ts'],
          exclude: ['test/browser.test.ts'],
          env: { MCP_PAYLOAD_CODEC_WASM: 'scalar' },
        },
      },
    ],
  },
});
