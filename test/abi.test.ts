// The WASM interface is defined once, in assembly/abi.ts: the core exports each constant as a
// global, and the build writes them into src/core/abi.ts for the host. These tests fail if the
// host's copy and either build of the core disagree, if host code spells a constant of the
// interface itself instead of importing it, or if the functions either build exports differ
// from the ones CoreExports (src/core/instance.ts) declares; and the shipped builds carry no
// test hook (test/core-hooks.ts: the test builds add them).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as abi from '../src/core/abi.ts';
import { SCALAR_WASM_BASE64, SIMD_WASM_BASE64 } from '../src/core/wasm-bytes.ts';
import { exportedFunctions } from './wasm-signatures.ts';

const host: Record<string, number> = { ...abi };
const names = Object.keys(host);

/** The immutable globals a build of the core exports, by name. */
function exportedGlobals(base64: string): Record<string, number> {
  const module = new WebAssembly.Module(Buffer.from(base64, 'base64'));
  const { exports } = new WebAssembly.Instance(module, {});
  const found: Record<string, number> = {};
  for (const e of WebAssembly.Module.exports(module)) {
    if (e.kind === 'global') found[e.name] = (exports[e.name] as WebAssembly.Global).value as number;
  }
  return found;
}

describe('the WASM interface', () => {
  it.each([
    ['SIMD', SIMD_WASM_BASE64],
    ['scalar', SCALAR_WASM_BASE64],
  ])('the %s core exports exactly the constants of src/core/abi.ts, with the same values', (_, base64) => {
    const core = exportedGlobals(base64);
    expect(Object.keys(core).length).toBeGreaterThan(100);
    expect(core).toEqual(host);
  });

  it('lays out the descriptor, the transducer state and the escape map entry without overlap, inside their sizes', () => {
    // Fields are u32 unless a NAME_SIZE constant gives their size.
    const fits = (prefix: string, size: number, least: number) => {
      const fields = names
        .filter((n) => n.startsWith(prefix) && !n.endsWith('_SIZE'))
        .map((n) => ({ n, at: host[n]!, size: host[`${n}_SIZE`] ?? 4 }))
        .sort((a, b) => a.at - b.at);
      expect(fields.length).toBeGreaterThanOrEqual(least);
      for (const [k, f] of fields.entries()) {
        expect(f.at % 4, f.n).toBe(0);
        expect(f.at + f.size, f.n).toBeLessThanOrEqual(fields[k + 1]?.at ?? size);
      }
    };
    fits('D_', abi.DESCRIPTOR_SIZE, 16);
    fits('J_', abi.J_SIZE, 50);
    fits('ESC_', abi.ESCAPE_ENTRY_SIZE, 3);
  });
});

/** The members an interface declares in a TS file: methods as [parameter types, return type], and properties. */
function declared(file: string, name: string): { methods: Map<string, [string[], string]>; properties: string[] } {
  const text = readFileSync(join(import.meta.dirname, file), 'utf8');
  const start = text.indexOf(`export interface ${name} {`);
  const body = text
    .slice(start, text.indexOf('\n}', start))
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/\/\/.*$/gm, '');
  const methods = new Map<string, [string[], string]>();
  for (const m of body.matchAll(/^\s*(\w+)\(([^)]*)\):\s*([^;]+);/gm)) {
    const params = m[2]!.split(',').filter((p) => p.trim() !== '');
    methods.set(m[1]!, [params.map((p) => p.split(':')[1]!.trim()), m[3]!.trim()]);
  }
  const properties = [...body.matchAll(/^\s*(?:readonly\s+)?(\w+):/gm)].map((m) => m[1]!);
  return { methods, properties };
}

/** A declared method as a WASM signature: numbers are i32 (the core's usize, i32 and u32), void is no result. */
const asWasm = ([params, result]: [string[], string]) => ({
  params: params.map((p) => (p === 'number' ? 'i32' : p)),
  results: result === 'void' ? [] : [result === 'number' ? 'i32' : result],
});

describe('the functions the core exports', () => {
  const coreExports = declared('../src/core/instance.ts', 'CoreExports');
  const hooks = declared('core-hooks.ts', 'CoreHooks');
  const shipped = { SIMD: Buffer.from(SIMD_WASM_BASE64, 'base64'), scalar: Buffer.from(SCALAR_WASM_BASE64, 'base64') };
  const testBuilds = {
    SIMD: readFileSync(join(import.meta.dirname, '../build/core-hooks.simd.wasm')),
    scalar: readFileSync(join(import.meta.dirname, '../build/core-hooks.scalar.wasm')),
  };

  it('reads the declarations and the modules (the checks below see real ones)', () => {
    expect(coreExports.methods.size).toBeGreaterThan(8);
    expect(coreExports.methods.get('jsonLarge')).toEqual([Array(6).fill('number'), 'number']);
    expect(coreExports.properties).toEqual(['memory']);
    expect([...hooks.methods.keys()].sort()).toEqual(['indexedAgain', 'indexedPath', 'keyId', 'rawDecoded', 'rawStrings', 'wholeScans']);
    // The parse of the binary agrees with the engine on every exported function's arity.
    for (const bytes of [...Object.values(shipped), ...Object.values(testBuilds)]) {
      const found = exportedFunctions(bytes);
      const instance = new WebAssembly.Instance(new WebAssembly.Module(bytes), {});
      const engine = WebAssembly.Module.exports(new WebAssembly.Module(bytes)).filter((e) => e.kind === 'function');
      expect(engine.length).toBeGreaterThan(8);
      expect([...found.keys()].sort()).toEqual(engine.map((e) => e.name).sort());
      for (const [name, sig] of found) expect(sig.params.length, name).toBe((instance.exports[name] as () => unknown).length);
    }
  });

  it.each(Object.entries(shipped))(
    'the shipped %s core exports exactly the functions of CoreExports, with their signatures',
    (_, bytes) => {
      const found = Object.fromEntries(exportedFunctions(bytes));
      const wanted = Object.fromEntries([...coreExports.methods].map(([n, m]) => [n, asWasm(m)]));
      expect(found).toEqual(wanted);
      const others = WebAssembly.Module.exports(new WebAssembly.Module(bytes)).filter((e) => e.kind !== 'function' && e.kind !== 'global');
      expect(others).toEqual([{ name: 'memory', kind: 'memory' }]);
    },
  );

  it.each(Object.entries(testBuilds))('the %s test build adds the hooks of test/core-hooks.ts and nothing else', (variant, bytes) => {
    const found = Object.fromEntries(exportedFunctions(bytes));
    const wanted = Object.fromEntries([...coreExports.methods, ...hooks.methods].map(([n, m]) => [n, asWasm(m)]));
    expect(found).toEqual(wanted);
    expect(exportedGlobals(bytes.toString('base64'))).toEqual(exportedGlobals(variant === 'SIMD' ? SIMD_WASM_BASE64 : SCALAR_WASM_BASE64));
  });
});

const SRC = join(import.meta.dirname, '../src');
const GENERATED = new Set(['core/abi.ts', 'core/wasm-bytes.ts']);

/** Every host source file but the generated ones, relative to src/, with comments removed. */
function hostSources(): [string, string][] {
  const files = (readdirSync(SRC, { recursive: true }) as string[]).filter(
    (f) => f.endsWith('.ts') && !GENERATED.has(f.split('\\').join('/')),
  );
  return files.map((f) => [
    f,
    readFileSync(join(SRC, f), 'utf8')
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/(^|[^:'"`])\/\/.*$/gm, '$1'),
  ]);
}

/** The names a file imports from the generated interface module. */
function importedFromAbi(code: string): Set<string> {
  const names = new Set<string>();
  for (const m of code.matchAll(/import\s*(?:type\s*)?\{([^}]*)\}\s*from\s*'[./]*(?:core\/)?abi\.js'/g)) {
    for (const part of m[1]!.split(',')) if (part.trim()) names.add(part.trim().split(/\s+as\s+/)[0]!);
  }
  return names;
}

describe('the host takes the interface from src/core/abi.ts only', () => {
  const sources = hostSources();

  it('reads the sources (the check below sees real code)', () => {
    expect(sources.length).toBeGreaterThan(50);
    expect(sources.some(([f, code]) => f.includes('transducer') && importedFromAbi(code).has('J_DESC'))).toBe(true);
  });

  it('no host file declares a constant of the interface, and every one it uses is imported', () => {
    const problems: string[] = [];
    for (const [file, code] of sources) {
      const imported = importedFromAbi(code);
      for (const name of names) {
        if (new RegExp(`\\b(?:const|let|var|enum)\\s+${name}\\b|[{,]\\s*${name}\\s*:`).test(code))
          problems.push(`${file} declares ${name}`);
        else if (new RegExp(`\\b${name}\\b`).test(code) && !imported.has(name))
          problems.push(`${file} uses ${name} without importing it from abi.js`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('no host file reads or writes WASM memory at a bare numeric offset, or passes the core a bare mode', () => {
    const problems: string[] = [];
    for (const [file, code] of sources) {
      // heap32()[(ptr + 24) >> 2], words[(at >> 2) + 1]: a field offset spelt as a number.
      for (const m of code.matchAll(/\[\(\s*[\w.]+\s*\+\s*\d+\s*\)\s*>>\s*2\s*\]|\[\s*\(\s*[\w.]+\s*>>\s*2\s*\)\s*\+\s*\d+\s*\]/g))
        problems.push(`${file}: ${m[0]}`);
      // core.scan(..., 1): the record mode spelt as a number.
      for (const m of code.matchAll(/core\.scan\([^)]*,\s*\d+\s*\)/g)) problems.push(`${file}: ${m[0]}`);
    }
    expect(problems).toEqual([]);
  });
});
