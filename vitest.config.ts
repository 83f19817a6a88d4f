import { defineConfig } from 'vitest/config';

// Every test runs against both builds of the WASM core: SIMD (the default) and scalar
// (what engines without WebAssembly SIMD get).
export default defineConfig({
  test: {
    projects: [
      { extends: true, test: { name: 'simd', include: ['test/**/*.test.ts'], env: { MCP_PAYLOAD_CODEC_WASM: 'simd' } } },
      { extends: true, test: { name: 'scalar', include: ['test/**/*.test.ts'], env: { MCP_PAYLOAD_CODEC_WASM: 'scalar' } } },
    ],
  },
});
