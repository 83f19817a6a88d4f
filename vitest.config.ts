import { readdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { defineConfig } from 'vitest/config';

// The tests run against both builds of the WASM core: SIMD (the default) and scalar (what
// engines without WebAssembly SIMD get). Tests of what runs around the core (the CLI, HTTP,
// SDK wrappers, guards, end to end) run once, on SIMD: their logic does not depend on the
// build, and the core's agreement between builds is held by the kernel, stream and property
// tests, which run on both (so do the byte-level HTTP body properties). The browser test loads
// the built bundle in Chromium, which picks its own variant, so it runs once too. cli-args
// holds the command line's parser and the CLI's options, and readme-examples what the docs
// claim: what the core writes under each option is held on both builds by the properties.
// The held-* adversary files test what the framers hold, carry and give back across cuts (JS
// logic, the same on both builds); the batch entries they reach are held on both builds by
// stream-ndjson-bytes, stream-sse-bytes, stream-framed-batch, large-lines-adversary and
// json-conformance, which compare them with the per-message path on the same inputs' shapes.
const BUILD_INDEPENDENT = [
  'test/browser.test.ts',
  'test/playground.test.ts',
  'test/readme-examples.test.ts',
  'test/cli.test.ts',
  'test/cli-*.test.ts',
  'test/http-!(body|guard-batch-bytes).test.ts',
  'test/node-upstream-*.test.ts',
  'test/e2e-*.test.ts',
  'test/mcp-*.test.ts',
  'test/connect-*.test.ts',
  'test/guard-*.test.ts',
  'test/call-timer.test.ts',
  'test/tool-guard-*.test.ts',
  'test/held-{lines,frames,events}-adversary.test.ts',
  'test/{layers,import-graph,doc-links,one-line,raw-ids,refused-lines,runtimes}.test.ts',
];
// The scalar build (what engines without WebAssembly SIMD get) differs from the SIMD one only in
// the core's scalar branches (`ASC_FEATURE_SIMD` in assembly/: stage 1's words, the UTF-8 and
// UTF-16 paths, escapes, the matcher's whole-string loop, the rewrites, token decoding). These
// files aim at those branches and hold each build to a reference (the kernels, the indexed
// path, the byte paths against the per-message path, the properties), and check their cost
// (stream-complexity): they run on both builds, the rest on SIMD only. Of 107 mutants on the
// scalar-only lines this set kills 87; the other 20 read as equivalent (docs/TESTING.md).
const SCALAR = [
  'kernel-*',
  'indexed-*',
  'utf16-to-utf8',
  'utf16-result',
  'stream-ndjson-bytes',
  'stream-sse-bytes',
  'stream-framed-batch',
  'stream-complexity',
  'json-conformance',
  'field-policy',
  'decode-tokens',
  'properties',
  'fold-properties',
  'escape-map-adversary',
  'astral-terms',
];
// A misspelt or renamed entry would take its file off the scalar build in silence.
const testFiles = readdirSync('test');
for (const name of SCALAR) {
  const file = new RegExp(`^${name.replaceAll('*', '[^/]*')}\\.test\\.ts$`);
  if (!testFiles.some((f) => file.test(f))) throw new Error(`vitest.config.ts: SCALAR's '${name}' names no test file`);
}
// A file's modules: most files share their worker's (`isolate: false`: a file's start then
// imports nothing again: vitest, the library, the core and the SDK cost 0.3-0.9 s of CPU a
// file). The core's files compute; the build-independent ones start processes and sockets and
// close them after each test (a helper registers what it opened with the test that opened it,
// never with a hook at its top level: it is imported once per worker). These run in a module
// graph of their own (vitest's isolation), as they change what later files would see: module
// mocks (vi.mock), spies on what every module calls, counts kept by a module (the schema
// cache's), fake timers, the one WASM core left full or grown past 4 GiB, or memory measured
// (what files before left would count).
const OWN_MODULES = [
  'test/{abi,call-timer,guard-verdict-paths}.test.ts',
  // (Reads the core's hooks too, by vi.mock: it measures how much WASM memory a line grows.)
  'test/large-lines-adversary.test.ts',
  'test/{stream-deferred-held,stream-sse-whole,stream-consumers,stream-batch-buffers}.test.ts',
  'test/{cli-serve-handler,cli-serve-session,http-access-adversary,http-connect,http-serve-call-timeout,mcp-guard-order}.test.ts',
  'test/{cli-proxy-upstream-timeout,node-upstream-deadlines,http-parse-once,guard-schema-cache}.test.ts',
  'test/{stream-memory-full,http-memory-full,stream-output-past-4gib,held-bytes-past-4gib,work-pool-room}.test.ts',
  'test/{memory-bounded,stream-idle-memory,stream-memory,stream-sse-memory,refused-lines,utf16-result}.test.ts',
];
// Files that read the core's test hooks (test/core-hooks.ts): they share a module graph in which
// the core is the build with hooks (`hooksCore`), apart from the files that run the shipped one.
// Each file starts with the indexed path on (test/core-hooks-default.ts), whatever the one before
// left; their counts are read as differences.
const HOOKS = [
  'test/{astral-terms,escape-map-adversary,kernel-key-id,stream-indexed,stream-large-lines}.test.ts',
  'test/indexed-{adversary,closes,closes-regions,data,envelope-head,escape-runs,loops-adversary,members,raw-escapes}.test.ts',
];
/** Loads the core with test hooks (test/wasm-bytes-with-hooks.ts) wherever src/core/wasm-bytes.ts is imported. */
const hooksCore = {
  name: 'core-with-hooks',
  enforce: 'pre' as const,
  async resolveId(
    this: { resolve: (s: string, i?: string, o?: object) => Promise<{ id: string } | null> },
    source: string,
    importer?: string,
  ) {
    if (!/\/wasm-bytes\.[jt]s$/.test(source)) return null;
    const resolved = await this.resolve(source, importer, { skipSelf: true });
    return resolved?.id.endsWith('/src/core/wasm-bytes.ts') ? resolve('test/wasm-bytes-with-hooks.ts') : null;
  },
};
/**
 * A build's runs: the core's files sharing modules; (`-io`, SIMD only) the build-independent
 * ones sharing theirs, apart, so that what they leave running never counts in a core file's CPU
 * time; (`-own`) those that need modules of their own. The scalar build runs `SCALAR` only.
 */
function projectsOf(build: 'simd' | 'scalar') {
  const env = { MCP_PAYLOAD_CODEC_WASM: build };
  const setupFiles = ['test/core-hooks-default.ts'];
  if (build === 'scalar') {
    const only = [`test/!(${SCALAR.join('|')}).test.ts`];
    return [
      {
        extends: true,
        test: { name: build, include: SCALAR.map((f) => `test/${f}.test.ts`), exclude: [...OWN_MODULES, ...HOOKS], isolate: false, env },
      },
      { extends: true, test: { name: `${build}-own`, include: OWN_MODULES, exclude: only, env } },
      {
        extends: true,
        plugins: [hooksCore],
        test: { name: `${build}-hooks`, include: HOOKS, exclude: only, isolate: false, setupFiles, env },
      },
    ];
  }
  const shared = { include: ['test/**/*.test.ts'], isolate: false, env };
  return [
    { extends: true, test: { name: build, ...shared, exclude: [...BUILD_INDEPENDENT, ...OWN_MODULES, ...HOOKS] } },
    { extends: true, test: { name: `${build}-own`, include: OWN_MODULES, env } },
    { extends: true, plugins: [hooksCore], test: { name: `${build}-hooks`, include: HOOKS, isolate: false, setupFiles, env } },
    { extends: true, test: { name: `${build}-io`, ...shared, include: BUILD_INDEPENDENT, exclude: OWN_MODULES } },
  ];
}
export default defineConfig({
  test: {
    // A worker more than the cores (vitest's default leaves one idle): many tests wait on child
    // processes, sockets and timers, and the complexity tests count CPU time, not waiting
    // (test/scaling.ts). On 2 cores: 231 s -> 188-196 s, green in both runs.
    maxWorkers: availableParallelism() + 1,
    // Long fuzzing (npm run fuzz) raises the run counts; give it time.
    testTimeout: process.env.FUZZ_RUNS ? 900_000 : 60_000,
    // fast-check's global limits (a failing or hanging property fails in seconds, not minutes).
    setupFiles: ['test/setup-fast-check.ts', 'test/setup-equal-bytes.ts'],
    // Prints the seed the properties draw from (test/suite-seed.ts), to replay a run.
    globalSetup: ['test/print-seed.ts', 'test/run-tmpdir.ts'],
    projects: [...projectsOf('simd'), ...projectsOf('scalar')],
  },
});
