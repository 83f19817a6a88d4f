// The layers' dependencies: only the SDK wrappers (mcp/) and the CLI's serve may import the
// optional MCP SDK, so the codec, the streams, the guards and the HTTP entry (and their .d.ts)
// work without it.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
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
});
