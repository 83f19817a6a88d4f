// The path rule measured on the tool lists of real servers (test/fixtures/tool-lists/, captured
// by scripts/tool-lists.mjs): every path parameter of server-filesystem is caught, and calls that
// fill the other servers' parameters with ordinary values are never blocked. Each parameter is
// filled from its schema: a path-shaped value outside the root for the first test, ordinary
// text for the second (a value the model would send in ordinary use).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Roots } from '../src/guard/paths.ts';

interface Tool {
  name: string;
  inputSchema: Record<string, unknown>;
}
const tools = (server: string): Tool[] =>
  JSON.parse(readFileSync(join(import.meta.dirname, 'fixtures', 'tool-lists', `${server}.json`), 'utf8')).tools;

/** Arguments with every string (and each array's one element) set to `fill`. */
function filled(schema: Record<string, unknown>, fill: string): unknown {
  if (schema.type === 'array') return [filled((schema.items as Record<string, unknown>) ?? {}, fill)];
  if (schema.type === 'object' || schema.properties) {
    const props = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
    return Object.fromEntries(Object.entries(props).map(([k, s]) => [k, filled(s, fill)]));
  }
  return schema.type === 'string' || schema.type === undefined ? fill : 1;
}

/** The pointers the rule blocks, each call given every string as `fill`. */
function blocked(server: string, fill: string): string[] {
  const roots = new Roots(['/srv/root']);
  const out: string[] = [];
  for (const tool of tools(server)) {
    let args = filled(tool.inputSchema, fill) as Record<string, unknown>;
    // Block one at a time: a blocked pointer is set inside and the call checked again.
    for (let v = roots.check(args, tool.inputSchema); v; v = roots.check(args, tool.inputSchema)) {
      out.push(`${tool.name}${v.pointer}`);
      args = structuredClone(args);
      const parts = v.pointer.split('/').slice(1);
      let at = args as Record<string, unknown>;
      for (const p of parts.slice(0, -1)) at = at[p] as Record<string, unknown>;
      at[parts.at(-1)!] = 'inside';
    }
  }
  return out;
}

const ORDINARY = [
  'hello world',
  'Alice',
  'com.example.app',
  'a/b',
  'README.md.gz',
  'https://example.com/a/../b',
  'data:text/plain;base64,aGk=',
  '@e5',
  'tag=ActivityManager',
  '北京 😀',
  '',
];

describe('the path rule on real servers', () => {
  it('catches every path parameter of server-filesystem, and nothing else', () => {
    // Hand-written from the server's tool descriptions: the parameters that name files.
    expect(blocked('server-filesystem', '/elsewhere/x').sort()).toEqual(
      [
        'create_directory/path',
        'directory_tree/path',
        'edit_file/path',
        'get_file_info/path',
        'list_directory/path',
        'list_directory_with_sizes/path',
        'move_file/destination',
        'move_file/source',
        'read_file/path',
        'read_media_file/path',
        'read_multiple_files/paths/0',
        'read_text_file/path',
        'search_files/path',
        'write_file/path',
      ].sort(),
    );
    // (content, edits, patterns hold text: a path written in a file is not one the server opens)
    expect(blocked('server-filesystem', '../../etc/passwd')).toHaveLength(14);
    expect(blocked('server-filesystem', 'file:///etc/passwd').length).toBeGreaterThan(14); // (a file: URI anywhere)
  });

  it("reads mobile-mcp's file parameters as paths, and server-everything's and server-memory's none", () => {
    expect(blocked('mobile-mcp', '/elsewhere/x').sort()).toEqual(
      [
        'mobile_get_device_logs/saveTo',
        'mobile_install_app/path',
        'mobile_save_screenshot/saveTo',
        'mobile_start_screen_recording/output',
      ].sort(),
    );
    expect(blocked('server-everything', '/elsewhere/x')).toEqual(['gzip-file-as-resource/data']); // (format: uri, no scheme)
    expect(blocked('server-memory', '/elsewhere/x')).toEqual([]);
  });

  it.each(['server-everything', 'server-memory', 'mobile-mcp', 'server-filesystem'])(
    '%s: ordinary values in every parameter block nothing',
    (server) => {
      for (const fill of ORDINARY) expect(blocked(server, fill), fill).toEqual([]);
    },
  );
});
