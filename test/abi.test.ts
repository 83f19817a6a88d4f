// The WASM interface is defined once, in assembly/abi.ts: the core exports each constant as a
// global, and the build writes them into src/core/abi.ts for the host. These tests fail if the
// host's copy and either build of the core disagree, or if host code spells a constant of the
// interface itself instead of importing it.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as abi from '../src/core/abi.ts';
import { SCALAR_WASM_BASE64, SIMD_WASM_BASE64 } from '../src/core/wasm-bytes.ts';

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

  it('lays out the descriptor and the transducer state without overlap, inside their sizes', () => {
    // Fields are u32 unless a NAME_SIZE constant gives their size.
    const fits = (prefix: string, size: number) => {
      const fields = names
        .filter((n) => n.startsWith(prefix) && !n.endsWith('_SIZE'))
        .map((n) => ({ n, at: host[n]!, size: host[`${n}_SIZE`] ?? 4 }))
        .sort((a, b) => a.at - b.at);
      expect(fields.length).toBeGreaterThan(10);
      for (const [k, f] of fields.entries()) {
        expect(f.at % 4, f.n).toBe(0);
        expect(f.at + f.size, f.n).toBeLessThanOrEqual(fields[k + 1]?.at ?? size);
      }
    };
    fits('D_', abi.DESCRIPTOR_SIZE);
    fits('J_', abi.J_SIZE);
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
