// The house's size rules (issue #31): no file in src/ or assembly/ over 400 lines, no function
// or closure over 150. Functions are found with a real TypeScript parser (oxc, through
// rolldown's parseAst), so a closure inside a closure is measured on its own; AssemblyScript's
// decorators (`@inline`), which TypeScript does not allow on functions, are blanked first.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseAst } from 'rolldown/parseAst';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');
const MAX_FILE_LINES = 400;
const MAX_FUNCTION_LINES = 150;

const files = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
/** `@inline` and the like blanked (same length: positions and lines stay), for a TypeScript parser. */
const blankDecorators = (text: string) =>
  text.replace(/^(\s*)@(\w+)/gm, (_, space: string, word: string) => space + ' '.repeat(word.length + 1));
const sources = [...files(join(ROOT, 'src')), ...files(join(ROOT, 'assembly'))].map((f) => ({
  name: relative(ROOT, f).replaceAll('\\', '/'),
  text: blankDecorators(readFileSync(f, 'utf8')),
}));

/** Each function in `text` with its first line and its length in lines. */
function functionSpans(text: string): { line: number; lines: number }[] {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) starts.push(i + 1);
  const lineOf = (pos: number) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= pos) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
  const spans: { line: number; lines: number }[] = [];
  const visit = (node: unknown): void => {
    if (!node || typeof node !== 'object') return;
    if (Array.isArray(node)) {
      for (const child of node) visit(child);
      return;
    }
    const n = node as { type?: string; body?: unknown; start: number; end: number };
    if (n.body && (n.type === 'FunctionDeclaration' || n.type === 'FunctionExpression' || n.type === 'ArrowFunctionExpression')) {
      const line = lineOf(n.start);
      spans.push({ line, lines: lineOf(n.end) - line + 1 });
    }
    for (const value of Object.values(n)) if (value && typeof value === 'object') visit(value);
  };
  visit(parseAst(text, { lang: 'ts' }));
  return spans;
}

describe('house sizes', () => {
  it(`no file in src/ or assembly/ is over ${MAX_FILE_LINES} lines`, () => {
    const long = sources.map(({ name, text }) => ({ name, lines: text.split('\n').length })).filter((f) => f.lines > MAX_FILE_LINES);
    expect(long).toEqual([]);
  });

  it(`no function or closure is over ${MAX_FUNCTION_LINES} lines`, () => {
    const long = sources.flatMap(({ name, text }) =>
      functionSpans(text)
        .filter((s) => s.lines > MAX_FUNCTION_LINES)
        .map((s) => `${name}:${s.line} (${s.lines} lines)`),
    );
    expect(long).toEqual([]);
  });

  it('measures functions of every kind, nested ones on their own, and decorated core functions', () => {
    const body = (n: number) => Array.from({ length: n }, (_, i) => `  x += ${i};`).join('\n');
    const text = [
      'export function outer(): void {', // line 1
      '  let x = 0;',
      '  const inner = () => {', // line 3
      body(3), // lines 4-6
      '  };',
      '}', // line 8
      '@inline',
      'function core(a: u32): u32 {', // line 10
      '  return <u32>a;',
      '}',
      'class C { m(): void {', // line 13: a method's body is a FunctionExpression
      body(2),
      '} }', // line 16
    ].join('\n');
    expect(functionSpans(blankDecorators(text)).sort((a, b) => a.line - b.line)).toEqual([
      { line: 1, lines: 8 },
      { line: 3, lines: 5 },
      { line: 10, lines: 3 },
      { line: 13, lines: 4 },
    ]);
  });
});
