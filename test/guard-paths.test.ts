// The path rule of the roots guard (src/guard/paths.ts): which arguments are paths (fixed cases
// of the naming rule), and where a path lands (a property against a reference built on
// node:path and node:url, over generated POSIX and Windows paths and file: URIs).
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { MAX_SEGMENTS, pathArguments, pathName, type Realpath, Roots } from '../src/guard/paths.ts';
import { ToolCallGuard } from '../src/guard/tool.ts';
import { runs } from './arbitraries.ts';

describe('which parameter names say path', () => {
  it.each([
    'path',
    'paths',
    'file',
    'files',
    'filename',
    'fileName',
    'file_name',
    'filePath',
    'source_path',
    'targetDir',
    'target-dir',
    'dir',
    'directory',
    'directories',
    'cwd',
    'root',
    'source',
    'destination',
    'target',
    'outputPath',
    'output',
    'saveTo',
    'save_to',
    'SOURCE_FILE',
    'rootURI',
    'uri',
    'resourceUri',
  ])('%s is a path parameter', (name) => expect(pathName(name)).toBeDefined());

  it.each([
    'profile',
    'pathPattern',
    'targetLanguage',
    'message',
    'content',
    'text',
    'query',
    'name',
    'url',
    'pattern',
    'excludePatterns',
    'uriTemplate',
    'sourceText',
    'filter',
    'dryRun',
    'outputType',
    'to',
    '',
  ])('%s is not', (name) => expect(pathName(name)).toBeUndefined());

  it('uri names are read as URIs, the others as paths', () => {
    expect([pathName('uri'), pathName('resourceUris'), pathName('filePath')]).toEqual(['uri', 'uri', 'path']);
  });

  it('finds path values by name, in arrays, by schema format, and file: URIs anywhere', () => {
    const schema = {
      type: 'object',
      properties: { link: { type: 'string', format: 'uri' }, refs: { type: 'array', items: { format: 'uri-reference' } } },
    };
    const args = {
      path: 'a',
      paths: ['b', ['c']],
      content: 'file: notes', // prose, not a URI
      note: 'file:///etc/passwd',
      nested: { deep: [{ x: 'FILE://localhost/x' }], 'a/b~': { sourceFile: 's' } },
      link: 'https://example.com',
      refs: ['r'],
      count: 3,
      pathObject: { text: 'not a path' },
    };
    expect(pathArguments(args, schema)).toEqual([
      { pointer: '/path', value: 'a', kind: 'path' },
      { pointer: '/paths/0', value: 'b', kind: 'path' },
      { pointer: '/paths/1/0', value: 'c', kind: 'path' },
      { pointer: '/note', value: 'file:///etc/passwd', kind: 'uri' },
      { pointer: '/nested/deep/0/x', value: 'FILE://localhost/x', kind: 'uri' },
      { pointer: '/nested/a~1b~0/sourceFile', value: 's', kind: 'path' },
      { pointer: '/link', value: 'https://example.com', kind: 'uri' },
      { pointer: '/refs/0', value: 'r', kind: 'uri' },
    ]);
  });

  it('walks arguments nested deeper than the call stack', () => {
    let deep: unknown = { path: '/x' };
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(pathArguments({ a: deep })).toHaveLength(1);
  });
});

// The reference: node's own resolution. A drive letter under POSIX roots, a leading `~`, a
// drive-relative path on another drive, and an encoded separator in a file: URI are outside by
// the rule (the guard cannot know where a server takes them).
type Flavour = 'posix' | 'win32';
function referenceInside(value: string, roots: string[], flavour: Flavour, kind: 'path' | 'uri'): boolean {
  const p = path[flavour];
  let v = value;
  if (/^file:/i.test(value)) {
    if (/%2f|%5c/i.test(value)) return false;
    try {
      v = fileURLToPath(new URL(value), { windows: flavour === 'win32' });
    } catch {
      return false;
    }
  } else if (kind === 'uri') {
    if (/^[A-Za-z][A-Za-z0-9+.-]+:/.test(value)) return true;
    v = decodeURIComponent(value);
  }
  if (v.startsWith('~')) return false;
  if (flavour === 'posix') {
    if (/^[A-Za-z]:/.test(v)) return false;
    v = v.replaceAll('\\', '/');
  } else {
    const drive = /^([A-Za-z]):(?![\\/])/.exec(v);
    if (drive && drive[1]!.toLowerCase() !== roots[0]![0]!.toLowerCase()) return false;
    if (/^[\\/]{2}/.test(v) && !/^[\\/]{2}[^\\/?.][^\\/]*[\\/][^\\/]+/.test(v)) return false; // (no share, or a device path)
  }
  const abs = p.resolve(roots[0]!, v);
  return roots.some((r) => {
    const rel = p.relative(r, abs);
    return rel === '' || (rel !== '..' && !rel.startsWith(`..${p.sep}`) && !p.isAbsolute(rel));
  });
}

const SEGMENTS = ['a', 'b', 'data', 'Data', 'DATA', 'data2', '..', '.', '', 'x y', '...', '%2e%2e', 'sub'];
const ENCODED = ['a', 'data', '%2e%2e', '..', '%64ata', 'x%20y', '.', 'sub', 'DATA', ' ', 'x y', 'da\tta'];
const segments = (pieces: string[]) => fc.array(fc.constantFrom(...pieces), { maxLength: 7 });
const sep = fc.constantFrom('/', '\\');
const join = (parts: string[], seps: string[]) => parts.map((s, i) => (i ? seps[i % seps.length] : '') + s).join('');
const trailing = fc.constantFrom('', '/', '\\');

const POSIX_PREFIXES = ['', '/', '\\', '//', 'C:', 'c:\\', 'd:/', '~', '~/', '\\\\srv\\share\\', './', '../'];
const WIN_PREFIXES = [
  '',
  '/',
  '\\',
  'C:',
  'c:',
  'C:\\',
  'c:/',
  'D:\\',
  'd:',
  '\\\\srv\\share\\',
  '//SRV/Share/',
  '\\\\srv',
  '\\\\?\\C:\\',
  '~',
  '..\\',
];
const URI_PREFIXES = [
  'file:///',
  'file://localhost/',
  'FILE://LOCALHOST/',
  'file:/',
  'file://other/',
  'file:///C:/',
  'file:///c|/',
  'file:///d:/',
  'file://srv/share/',
];

const plainPath = (prefixes: string[]) =>
  fc
    .tuple(fc.constantFrom(...prefixes), segments(SEGMENTS), fc.array(sep, { minLength: 1, maxLength: 3 }), trailing)
    .map(([prefix, parts, seps, end]) => prefix + join(parts, seps) + end);
const fileUri = fc
  .tuple(
    fc.constantFrom(...URI_PREFIXES),
    segments(ENCODED),
    trailing.filter((t) => t !== '\\'),
    fc.constantFrom('', '?q', '#f'),
  )
  .map(([prefix, parts, end, tail]) => prefix + parts.join('/') + end + tail);

const POSIX_ROOTS = [['/data'], ['/data/a'], ['/data', '/srv/share'], ['/'], ['/data/sub', '/data2']];
const WIN_ROOTS = [['C:\\data'], ['c:\\Data\\a'], ['C:\\data', 'D:\\'], ['\\\\srv\\share\\data'], ['C:\\']];

describe('where a path lands, against node:path', () => {
  for (const [flavour, prefixes, rootSets] of [
    ['posix', POSIX_PREFIXES, POSIX_ROOTS],
    ['win32', WIN_PREFIXES, WIN_ROOTS],
  ] as const) {
    it(`${flavour}: paths, file: URIs and uri parameters, each inside exactly when node:path says so`, () => {
      fc.assert(
        fc.property(
          fc.constantFrom(...rootSets),
          fc.oneof(
            plainPath([...prefixes]).map((v) => [v, 'path'] as const),
            fileUri.map((v) => [v, 'path'] as const),
            fc.oneof(plainPath(['', './', '../']), fc.constantFrom('https://x/../..', 'demo://r/1')).map((v) => [v, 'uri'] as const),
          ),
          (roots, [value, kind]) => {
            expect(new Roots(roots).inside(value, kind)).toBe(referenceInside(value, roots, flavour, kind));
          },
        ),
        runs(2000),
      );
    });
  }

  it('a file: URI with white space or a tab in it is read as the URL parser reads it', () => {
    // (the parser drops tabs and line breaks, and takes a space as %20: `/etc/ /..` is `/etc`)
    const roots = new Roots(['/data']);
    for (const v of ['file:///etc/ /../passwd', 'file:///etc/pa\tsswd', 'FILE:///data/ /../../etc/passwd', 'file:///etc/x y'])
      for (const kind of ['path', 'uri'] as const) expect(roots.inside(v, kind), `${kind} ${JSON.stringify(v)}`).toBe(false);
    expect(roots.inside('file:///data/x y', 'uri')).toBe(true);
    // Found whatever the parameter's name, as any file: URI is; prose after `file:` is not one.
    expect(pathArguments({ resource: 'file:///etc/pa\tsswd', note: 'file:///etc/ /../passwd' }).map((a) => a.pointer)).toEqual([
      '/resource',
      '/note',
    ]);
    expect(pathArguments({ content: 'file: notes and more', text: 'file:\tsee below' })).toEqual([]);
  });

  it('a value a server would trim is checked trimmed too', () => {
    const roots = new Roots(['/data']);
    for (const v of [' /etc/x', '"/etc/x"', "'/etc/x'", '\t/etc/x\n', '"../x"']) expect(roots.inside(v), JSON.stringify(v)).toBe(false);
    for (const v of [' a ', '"a"', ' /data/x ', "'b c'"]) expect(roots.inside(v), JSON.stringify(v)).toBe(true);
  });

  it('a path of more steps than any file system takes is outside', () => {
    const steps = (n: number) => Array.from({ length: n }, () => 'sub').join('/');
    const roots = new Roots(['/data']);
    expect(roots.inside(`/data/${steps(MAX_SEGMENTS - 2)}`)).toBe(true);
    expect(roots.inside(`/data/${steps(MAX_SEGMENTS)}`)).toBe(false);
  });

  it('a sibling with the same prefix is not inside', () => {
    expect(new Roots(['/data']).inside('/data2/x')).toBe(false);
    expect(new Roots(['/data']).inside('/data/../data2')).toBe(false);
    expect(new Roots(['C:\\data']).inside('c:/DATA2')).toBe(false);
  });

  it('refuses roots it cannot place', () => {
    expect(() => new Roots([])).toThrow(TypeError);
    expect(() => new Roots(['data'])).toThrow(/root 1 is not an absolute path/);
    expect(() => new Roots(['/data', 'C:\\data'])).toThrow(/all POSIX paths or all Windows paths/);
  });

  it('a realpath that answers what is no absolute path, or throws, leaves nothing inside', () => {
    expect(new Roots(['/data'], () => 'not/absolute').inside('/data/x')).toBe(false);
    expect(new Roots(['C:\\data'], (p) => (p.length > 3 ? '/posix/answer' : p)).inside('C:\\data\\x')).toBe(false);
    const denied: Realpath = () => {
      throw Object.assign(new Error('EACCES'), { code: 'EACCES' });
    };
    expect(new Roots(['/data'], denied).inside('/data/x')).toBe(false);
    expect(new Roots(['/data'], (p) => p).inside('/data/x')).toBe(true); // (a realpath that finds everything real)
  });

  it('names the parameter and the roots, never the value', () => {
    const roots = new Roots(['/data']);
    const verdict = roots.check({ options: { targetDir: '/etc/secret-value' } });
    expect(verdict?.pointer).toBe('/options/targetDir');
    expect(verdict?.reason).toContain('"/options/targetDir"');
    expect(verdict?.reason).toContain('"/data"');
    expect(verdict?.reason).not.toContain('secret-value');
    expect(roots.check({ path: 'inside/x', content: '../../etc/passwd' })).toBeUndefined();
  });
});

describe('symlinks, with a realpath', () => {
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'roots-')));
  const root = path.join(dir, 'root');
  const out = path.join(dir, 'out');
  mkdirSync(path.join(root, 'sub', 'deep'), { recursive: true });
  mkdirSync(path.join(out, 'a'), { recursive: true });
  symlinkSync(out, path.join(root, 'link-out'));
  symlinkSync(path.join(out, 'a'), path.join(root, 'link-oa'));
  symlinkSync(path.join(root, 'sub', 'deep'), path.join(root, 'link-deep'));
  symlinkSync(path.join(root, 'loop'), path.join(root, 'loop'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const realpath: Realpath = (p) => {
    try {
      return realpathSync(p);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw e;
    }
  };
  const roots = new Roots([root], realpath);

  // [value, inside with the realpath, inside lexically]
  it.each([
    ['link-out', false, true],
    ['link-out/new-file', false, true], // (does not exist yet: its nearest existing parent is the link)
    ['link-out/new/deeper', false, true],
    [`file://${root}/link-out/x`, false, true],
    ['link-oa/..', false, true], // the OS walks the link, then up: out; a server that normalises first: the root
    ['link-deep/../x', true, true], // (the OS: sub/x; normalised first: root/x)
    ['link-deep/../..', false, false], // (the OS: the root; normalised first: above it)
    ['loop/x', false, true], // a loop cannot be resolved: not inside
    ['sub/deep/new', true, true],
    ['new/deeper/still', true, true],
    ['.', true, true],
  ] as const)('%s inside: %s (lexically: %s)', (value, real, lexical) => {
    expect(roots.inside(value)).toBe(real);
    expect(new Roots([root]).inside(value)).toBe(lexical);
  });
});

describe('ToolCallGuard with roots', () => {
  const guard = new ToolCallGuard({ roots: ['/data'] });
  guard.outgoing({ jsonrpc: '2.0', id: 'l', method: 'tools/list' });
  guard.incoming({
    jsonrpc: '2.0',
    id: 'l',
    result: { tools: [{ name: 'read', inputSchema: { type: 'object', properties: { path: { type: 'string' } } } }] },
  });
  const call = (path: string) =>
    guard.outgoing({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'read', arguments: { path } } });

  it('answers a call outside the roots with isError naming the parameter, and lets one inside pass', async () => {
    expect(await call('/data/x/../y')).toBeUndefined();
    expect(await call('/etc/shadow-value')).toEqual({
      jsonrpc: '2.0',
      id: 7,
      result: {
        content: [
          {
            type: 'text',
            text: 'MCP tool call "read" was blocked before it reached the server: argument "/path" is a path outside the allowed roots ("/data")',
          },
        ],
        isError: true,
      },
    });
  });

  it('refuses roots it cannot use when it is made', () => {
    expect(() => new ToolCallGuard({ roots: ['relative'] })).toThrow(/root 1 is not an absolute path/);
  });
});
