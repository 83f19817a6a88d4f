// --config FILE: a command's options from a JSON file, keyed by their names. The loader as a
// function for the cases; real child processes for what a user sees (exit status 2, the line on
// stderr naming the key's JSON pointer and never its value, the file's options in effect).
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LIST_OPTIONS, parseCommandLine, VALUE_OPTIONS } from '../src/cli/args.ts';
import { CONFIG_MAX_BYTES, configFromJson, readConfig, withConfig } from '../src/cli/config.ts';
import { UsageError } from '../src/cli/usage-error.ts';
import { runs } from './arbitraries.ts';
import { CliSession, cli } from './fixtures/cli-session.ts';

const DIR = '/etc/mpc'; // paths in a file are taken from its folder (never read here)
const refusal = (json: unknown) => {
  try {
    configFromJson(json, DIR);
  } catch (e) {
    expect(e).toBeInstanceOf(UsageError);
    return (e as Error).message;
  }
  throw new Error(`accepted ${JSON.stringify(json)}`);
};

describe('configFromJson', () => {
  it('turns each kind of option into its command-line form, paths from the file folder', () => {
    expect(
      configFromJson(
        {
          $schema: './node_modules/mcp-payload-codec/schema/config.schema.json',
          prefix: 'p_',
          'hex-case': 'upper',
          port: 8080,
          'max-message-bytes': 1024,
          'call-timeout': '30s',
          audit: 'logs/audit.jsonl',
          'auth-token-file': '/abs/tokens',
          terms: 'terms.json',
          root: ['.', 'sub/dir', '/abs'],
          'allowed-host': ['example.com:8080'],
          guard: true,
          'no-auth': false,
        },
        DIR,
      ),
    ).toEqual({
      values: {
        prefix: 'p_',
        'hex-case': 'upper',
        port: '8080',
        'max-message-bytes': '1024',
        'call-timeout': '30s',
        audit: '/etc/mpc/logs/audit.jsonl',
        'auth-token-file': '/abs/tokens',
        terms: '/etc/mpc/terms.json',
      },
      lists: { root: ['/etc/mpc', '/etc/mpc/sub/dir', '/abs'], 'allowed-host': ['example.com:8080'] },
      flags: { guard: true },
    });
  });

  it('takes "client" as a root as it is (wrap --root client), and confirm as strings', () => {
    expect(configFromJson({ root: ['client'], confirm: ['destructive', 'deploy'] }, DIR)).toEqual({
      values: {},
      lists: { root: ['client'], confirm: ['destructive', 'deploy'] },
      flags: {},
    });
  });

  it('takes the terms object inline', () => {
    const terms = { ascii: ['qwen'], exact: ['通义'], pairs: [['ali', 'cloud']] };
    expect(configFromJson({ terms }, DIR)).toEqual({ values: {}, lists: {}, flags: {}, inlineTerms: terms });
  });

  it('refuses with the JSON pointer of the key, never the value', () => {
    const cases: [unknown, string][] = [
      [[], 'must hold a JSON object of options'],
      [{ prefx: 'SECRET' }, '/prefx: is not an option (see --help)'],
      [{ 'a/b~c': 1 }, '/a~1b~0c: is not an option (see --help)'],
      [{ port: 'SECRET' }, '/port: must be a whole number from 0 to 65535'],
      [{ port: 65536 }, '/port: must be a whole number from 0 to 65535'],
      [{ 'max-message-bytes': 1.5 }, '/max-message-bytes: must be a whole number from 1 to 9007199254740991'],
      [{ 'hex-case': 'SECRET' }, '/hex-case: must be one of lower, upper'],
      [{ 'call-timeout': 30 }, '/call-timeout: must be a duration such as "90s", "10m" or "1h"'],
      [{ 'call-timeout': '0s' }, '/call-timeout: must be a duration such as "90s", "10m" or "1h"'],
      [{ root: ['a', 'b', 3] }, '/root/2: must be a non-empty path (relative to the config file)'],
      [{ root: 'SECRET' }, '/root: must be an array'],
      [{ audit: '' }, '/audit: must be a non-empty path (relative to the config file)'],
      [{ guard: 'SECRET' }, '/guard: must be true or false'],
      [{ prefix: 7 }, '/prefix: must be a string'],
      [{ terms: { ascii: ['ok', ''] } }, '/terms/ascii/1: must be a non-empty string'],
      [{ terms: { pairs: [['a', 'b', 'SECRET']] } }, '/terms/pairs/0: must be a pair of terms ["first", "second"]'],
      [{ terms: { asci: ['SECRET'] } }, '/terms/asci: is not a field of terms (ascii, exact, pairs)'],
      [{ terms: 3 }, '/terms: must be a terms file (relative to the config file) or the terms object'],
      [{ $schema: 3 }, '/$schema: must be a string'],
      [{ 'x\ny': 1 }, '/x\\u000ay: is not an option (see --help)'],
      // (names an object inherits are no options either)
      [JSON.parse('{"__proto__": {"guard": true}}'), '/__proto__: is not an option (see --help)'],
      [{ constructor: 'SECRET' }, '/constructor: is not an option (see --help)'],
      [{ toString: 'SECRET' }, '/toString: is not an option (see --help)'],
    ];
    for (const [json, message] of cases) {
      const got = refusal(json);
      expect(got).toBe(message);
      expect(got).not.toContain('SECRET');
    }
  });

  it('refuses the options a file does not hold, saying why', () => {
    expect(refusal({ header: ['Authorization: Bearer SECRET'] })).toBe(
      '/header: is not taken from a config file (headers carry credentials, which a config file must not hold); give --header on the command line',
    );
    expect(refusal({ 'upstream-header': [] })).toMatch(/^\/upstream-header: is not taken from a config file \(headers carry credentials/);
    expect(refusal({ help: true })).toMatch(/^\/help: is not taken from a config file \(an action/);
    expect(refusal({ config: 'other.json' })).toMatch(/^\/config: is not taken from a config file/);
  });

  it('refuses what does not apply to the command, with the reason the command line gives', () => {
    const notFor = (name: string) => (name === 'port' ? '--port applies to proxy, serve, not wrap' : undefined);
    expect(() => configFromJson({ guard: true, port: 1 }, DIR, notFor)).toThrow(/^\/port: --port applies to proxy, serve, not wrap$/);
  });

  it('takes every value option as a string and every list option as strings unless typed otherwise', () => {
    // A string that fits every type that takes strings.
    for (const name of VALUE_OPTIONS.filter((n) => !['help', 'config'].includes(n)))
      expect(() => configFromJson({ [name]: '1s' }, DIR), name).not.toThrow(/not an option/);
    for (const name of LIST_OPTIONS.filter((n) => !['header', 'upstream-header'].includes(n)))
      expect(configFromJson({ [name]: ['1s'] }, DIR).lists[name as 'root'], name).toHaveLength(1);
  });
});

describe('withConfig: the command line over the file', () => {
  const file = configFromJson(
    { prefix: 'file_', suffix: '_f', root: ['a', 'b'], 'allowed-host': ['h'], guard: true, terms: { exact: ['x'] } },
    DIR,
  );
  it('a value or list on the command line replaces the file one (a list whole); the rest of the file stays', () => {
    const line = withConfig(parseCommandLine(['wrap', '--prefix', 'cli_', '--root', 'c', 'server']), file);
    expect(line.values).toEqual({ prefix: 'cli_', suffix: '_f' });
    expect(line.lists).toEqual({ root: ['c'], 'allowed-host': ['h'] });
    expect(line.flags).toEqual({ guard: true });
    expect(line.inlineTerms).toEqual({ exact: ['x'] });
    expect(line.child).toEqual(['server']);
  });
  it('a terms file on the command line replaces inline terms', () => {
    const line = withConfig(parseCommandLine(['encode', '--terms', 't.json']), file);
    expect(line.values.terms).toBe('t.json');
    expect(line.inlineTerms).toBeUndefined();
  });
  it('--guard or --guard-tools-only on the command line replaces the file one', () => {
    for (const [inFile, onLine] of [
      ['guard', 'guard-tools-only'],
      ['guard-tools-only', 'guard'],
    ]) {
      const line = withConfig(parseCommandLine(['wrap', `--${onLine}`, 'x']), configFromJson({ [inFile!]: true }, DIR));
      expect(line.flags).toEqual({ [onLine!]: true });
    }
  });
  it('flags add up', () => {
    fc.assert(
      fc.property(fc.boolean(), fc.boolean(), (inFile, onLine) => {
        const line = withConfig(parseCommandLine(['wrap', ...(onLine ? ['--guard'] : []), 'x']), configFromJson({ guard: inFile }, DIR));
        expect(line.flags.guard === true).toBe(inFile || onLine);
      }),
      runs(10),
    );
  });
});

describe('readConfig', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mpc-config-'));
  const write = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };
  const none = () => undefined;
  it('names the file; says where JSON breaks, not what is there', () => {
    const path = write('broken.json', '{"prefix": SECRET}');
    expect(() => readConfig(path, none)).toThrow(new UsageError(`--config ${path}: not JSON`));
    const where = write('where.json', '{\n  "prefix": "x"\n  "suffix": "SECRET"\n}');
    expect(() => readConfig(where, none)).toThrow(new UsageError(`--config ${where}: not JSON (line 3, column 3)`));
    expect(() => readConfig(join(dir, 'none.json'), none)).toThrow(
      new UsageError(`--config ${join(dir, 'none.json')}: cannot read it (ENOENT)`),
    );
    const bad = write('bad.json', '{"root": ["x", 7]}');
    expect(() => readConfig(bad, none)).toThrow(
      new UsageError(`--config ${bad}: /root/1: must be a non-empty path (relative to the config file)`),
    );
  });
  it('reads a file up to CONFIG_MAX_BYTES, and refuses one larger or endless without reading it all', () => {
    const padded = (n: number) => `{"prefix": "__c_"${' '.repeat(n - 18)}}`;
    const at = write('at.json', padded(CONFIG_MAX_BYTES));
    expect(readConfig(at, none).values.prefix).toBe('__c_');
    const over = write('over.json', padded(CONFIG_MAX_BYTES + 1));
    expect(() => readConfig(over, none)).toThrow(new UsageError(`--config ${over}: larger than 4 MiB`));
    expect(() => readConfig('/dev/zero', none)).toThrow(new UsageError('--config /dev/zero: larger than 4 MiB'));
  });
  it('takes paths from the file folder, and a file written with a BOM', () => {
    const path = write('ok.json', '\uFEFF{"audit": "a.jsonl"}');
    expect(readConfig(path, none).values.audit).toBe(join(dir, 'a.jsonl'));
  });
});

describe('the CLI with --config (child processes)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mpc-config-cli-'));
  const config = (name: string, json: unknown) => {
    const path = join(dir, name);
    writeFileSync(path, JSON.stringify(json));
    return path;
  };
  const message = JSON.stringify({ jsonrpc: '2.0', id: 1, result: { text: 'qwen' } }) + '\n';

  it('uses the options of the file, and the command line over them', () => {
    const path = config('encode.json', { prefix: '__f_', 'hex-case': 'upper', terms: { exact: ['qwen'] } });
    expect(cli(['encode', '--config', path], message)).toMatchObject({
      code: 0,
      stdout: '{"jsonrpc":"2.0","id":1,"result":{"text":"__f_7177656E__"}}\n',
    });
    expect(cli(['encode', '--config', path, '--prefix', '__c_'], message)).toMatchObject({
      code: 0,
      stdout: '{"jsonrpc":"2.0","id":1,"result":{"text":"__c_7177656E__"}}\n',
    });
  });

  it('wrap takes its guard, roots and audit file from the file, relative to its folder (not the working directory)', async () => {
    const home = realpathSync(mkdtempSync(join(tmpdir(), 'mpc-config-wrap-')));
    mkdirSync(join(home, 'inside'));
    const path = join(home, 'mcp.json');
    writeFileSync(path, JSON.stringify({ guard: true, root: ['inside'], audit: 'trail.jsonl' }));
    const server = `process.stdin.on('data', (d) => { for (const l of String(d).split('\\n').filter(Boolean)) { const m = JSON.parse(l);
      const result = m.method === 'tools/list' ? { tools: [{ name: 'read', inputSchema: { type: 'object', properties: { path: { type: 'string' } } } }] }
        : { content: [{ type: 'text', text: 'read ' + m.params.arguments.path }] };
      process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, result }) + '\\n'); } });`;
    const s = new CliSession(['wrap', '--config', path, process.execPath, '-e', server]); // cwd: the repository
    s.send({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    await s.response(1);
    const read = (id: number, file: string) =>
      s.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'read', arguments: { path: file } } });
    read(2, join(home, 'inside', 'a'));
    read(3, join(home, 'a'));
    expect((await s.response(2)).result.content[0]!.text).toBe(`read ${join(home, 'inside', 'a')}`);
    expect((await s.response(3)).result.isError).toBe(true);
    expect((await s.end()).code).toBe(0);
    const trail = readFileSync(join(home, 'trail.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    expect(trail).toMatchObject([{ request: '3', decision: 'blocked', rule: 'outside-roots', paths: ['/path'] }]);
  });

  it('exit 2 with the key path on stderr, never the value, before the server starts', () => {
    const path = config('bad.json', { guard: true, root: ['.', 'SECRET', 7] });
    const r = cli(['wrap', '--config', path, 'sh', '-c', 'echo started >&2']);
    expect(r).toMatchObject({
      code: 2,
      stdout: '',
      stderr: `mcp-payload-codec: --config ${path}: /root/2: must be a non-empty path (relative to the config file)\n`,
    });
    const unknown = config('unknown.json', { gaurd: 'SECRET' });
    expect(cli(['wrap', '--config', unknown, 'cat'])).toMatchObject({
      code: 2,
      stderr: `mcp-payload-codec: --config ${unknown}: /gaurd: is not an option (see --help)\n`,
    });
  });

  it("proxy and connect take roots as written: they are the server's paths, not this machine's", () => {
    // (a relative one is refused as on the command line, not made absolute here)
    const relative = config('remote-relative.json', { guard: true, root: ['data'] });
    expect(cli(['connect', 'http://127.0.0.1:9/mcp', '--config', relative], '')).toMatchObject({
      code: 2,
      stderr: 'mcp-payload-codec: --root 1 is not an absolute path (the server runs elsewhere: nothing is resolved here)\n',
    });
    expect(configFromJson({ root: ['C:\\data', 'data'] }, DIR, undefined, ['root']).lists.root).toEqual(['C:\\data', 'data']);
  });

  it('a command name an object inherits is no command', () => {
    expect(cli(['toString'])).toMatchObject({ code: 2, stderr: 'mcp-payload-codec: unknown command "toString" (see --help)\n' });
  });

  it('refuses an option the command does not take, as the command line does', () => {
    const path = config('port.json', { port: 8080 });
    expect(cli(['encode', '--config', path], message)).toMatchObject({
      code: 2,
      stderr: `mcp-payload-codec: --config ${path}: /port: --port applies to proxy, serve, not encode\n`,
    });
  });
});
