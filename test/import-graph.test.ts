// The import graph of src/ has no cycle (type-only imports count: they tie the files together
// for a reader just the same), and errors.ts is a leaf that everything may import.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../src', import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    return e.isDirectory() ? sourceFiles(p) : e.name.endsWith('.ts') ? [p] : [];
  });
}

/** Relative imports and re-exports of source files (not the core's .wasm), as paths relative to src/. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(SRC)) {
    const text = readFileSync(file, 'utf8');
    const targets = [...text.matchAll(/^(?:import|export)\b[^;]*?\bfrom\s+'(\.{1,2}\/[^']+\.js)'/gm)].map((m) =>
      relative(SRC, resolve(dirname(file), m[1]!)).replace(/\.js$/, '.ts'),
    );
    graph.set(relative(SRC, file), targets);
  }
  return graph;
}

/** Every cycle found by a depth-first walk, as the files along it. */
function cycles(graph: Map<string, string[]>): string[][] {
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (f: string) => {
    state.set(f, 'open');
    stack.push(f);
    for (const t of graph.get(f) ?? []) {
      if (state.get(t) === 'open') found.push([...stack.slice(stack.indexOf(t)), t]);
      else if (!state.has(t)) visit(t);
    }
    stack.pop();
    state.set(f, 'done');
  };
  for (const f of graph.keys()) if (!state.has(f)) visit(f);
  return found;
}

describe('the import graph of src/', () => {
  const graph = importGraph();

  it('reads the imports it should (a multi-line import, a type-only one, a re-export)', () => {
    expect(graph.get('codec/codec.ts')).toContain('codec/compiled.ts');
    expect(graph.get('compile/dfa.ts')).toContain('core/descriptor.ts'); // import type
    expect(graph.get('codec/integrity.ts')).toContain('errors.ts');
    expect(graph.get('index.ts')).toContain('codec/integrity.ts'); // export ... from
    for (const targets of graph.values()) for (const t of targets) expect(graph.has(t), t).toBe(true);
  });

  it('has no cycle', () => {
    expect(cycles(graph).map((c) => c.join(' -> '))).toEqual([]);
  });

  it('keeps errors.ts a leaf', () => {
    expect(graph.get('errors.ts')).toEqual([]);
  });
});
