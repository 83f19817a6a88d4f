// The layers' dependencies: only the SDK wrappers (mcp/) and the CLI's serve may import the
// optional MCP SDK, so the codec, the streams, the guards and the HTTP entry (and their .d.ts)
// work without it.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = join(import.meta.dirname, '..', 'src');
const files = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
const MAY_USE_SDK = /^(mcp\/|cli\/(serve|event-store)\.ts$)/;

describe('layers', () => {
  it('nothing outside mcp/ and serve imports the MCP SDK', () => {
    const offenders = files(SRC)
      .map((f) => relative(SRC, f).replaceAll('\\', '/'))
      .filter((f) => !MAY_USE_SDK.test(f) && /from '@modelcontextprotocol\/sdk/.test(readFileSync(join(SRC, f), 'utf8')));
    expect(offenders).toEqual([]);
  });

  it('the guards import nothing of mcp/, http/ or cli/', () => {
    const offenders = files(join(SRC, 'guard')).filter((f) => /from '\.\.\/(mcp|http|cli)\//.test(readFileSync(f, 'utf8')));
    expect(offenders).toEqual([]);
  });

  it('nothing the guards load, however indirectly (import() too), is of mcp/, http/, cli/ or the SDK', () => {
    const edges = (file: string) => [...readFileSync(file, 'utf8').matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*)'([^']+)'/g)].map((m) => m[1]!);
    const seen = new Set<string>();
    const offenders: string[] = [];
    const walk = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      for (const to of edges(file)) {
        if (to.startsWith('@modelcontextprotocol/sdk')) offenders.push(`${relative(SRC, file)} -> ${to}`);
        if (!to.startsWith('.')) continue;
        const target = resolve(dirname(file), to).replace(/\.js$/, '.ts');
        if (/^(mcp|http|cli)\//.test(relative(SRC, target).replaceAll('\\', '/'))) offenders.push(`${relative(SRC, file)} -> ${to}`);
        else walk(target);
      }
    };
    for (const f of files(join(SRC, 'guard'))) walk(f);
    expect(seen.size).toBeGreaterThan(files(join(SRC, 'guard')).length); // (it follows edges out of guard/)
    expect(offenders).toEqual([]);
  });
});
