// The command line: wrap's server command needs no "--" (MCP Inspector's CLIs consume it), every
// argument from the server command on is the server's, options take a value always or never.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FLAG_OPTIONS, LIST_OPTIONS, parseCommandLine, VALUE_OPTIONS } from '../src/cli/args.ts';
import { UsageError } from '../src/cli/usage-error.ts';
import { createCodec } from '../src/index.ts';
import { runs } from './arbitraries.ts';
import { CLI, cli, cliRuns, fixture, ROOT } from './fixtures/cli-session.ts';

// Arguments that look like ours, mixed into values and the child's command line.
const tricky = fc.oneof(fc.string(), fc.constantFrom('--guard', '--prefix', '--prefix=x', '--', '-', '-h', '--help', '--unknown', 'wrap'));

/** Reference: an argument that names an option of ours (given on its own as a value, it is refused). */
const namesOurs = (arg: string) =>
  arg === '-h' || [...VALUE_OPTIONS, ...LIST_OPTIONS, ...FLAG_OPTIONS].some((n) => arg === `--${n}` || arg.startsWith(`--${n}=`));

const ownOption = fc.oneof(
  fc
    .record({ name: fc.constantFrom(...VALUE_OPTIONS), value: tricky, joined: fc.boolean() })
    .filter((o) => o.joined || !namesOurs(o.value)),
  fc.record({ name: fc.constant('guard') }),
);
const render = (o: { name: string; value?: string; joined?: boolean }) =>
  o.value === undefined ? [`--${o.name}`] : o.joined ? [`--${o.name}=${o.value}`] : [`--${o.name}`, o.value];

describe('parseCommandLine', () => {
  it('wrap: our options before or after the command name, then the child command, with or without --', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(ownOption, { selector: (o) => o.name, maxLength: 5 }),
        fc.nat(5),
        fc.boolean(),
        fc.string().filter((s) => !s.startsWith('-')),
        tricky,
        fc.array(tricky, { maxLength: 6 }),
        (options, split, dashdash, file, anyFile, args) => {
          const before = options.slice(0, split).flatMap(render);
          const after = options.slice(split).flatMap(render);
          const first = dashdash ? anyFile : file; // after --, even "-x" is the command
          const line = parseCommandLine([...before, 'wrap', ...after, ...(dashdash ? ['--'] : []), first, ...args]);
          expect(line.command).toBe('wrap');
          expect(line.child).toEqual([first, ...args]);
          expect(line.values).toEqual(Object.fromEntries(options.filter((o) => 'value' in o).map((o) => [o.name, o.value])));
          expect(line.flags).toEqual(options.some((o) => o.name === 'guard') ? { guard: true } : {});
        },
      ),
      runs(300),
    );
  });

  it('refuses an option of ours given twice, a missing value, a value on a flag, and options not ours', () => {
    const refused = (argv: string[]) => expect(() => parseCommandLine(argv), argv.join(' ')).toThrow(UsageError);
    fc.assert(
      fc.property(fc.constantFrom(...VALUE_OPTIONS), tricky, tricky, (name, a, b) => {
        refused(['wrap', `--${name}`, a, `--${name}=${b}`, 'server']);
        refused(['wrap', `--${name}`]);
      }),
      runs(100),
    );
    refused(['wrap', '--guard=yes', 'server']);
    refused(['wrap', '--gaurd', 'server']);
    refused(['wrap', '-x', 'server']);
  });

  it('refuses a separate value that names an option of ours, for every command, and takes it joined', () => {
    const option = fc.constantFrom(...VALUE_OPTIONS, ...LIST_OPTIONS);
    const ours = fc.oneof(
      fc.constantFrom(...VALUE_OPTIONS, ...LIST_OPTIONS, ...FLAG_OPTIONS).map((n) => `--${n}`),
      fc.tuple(fc.constantFrom(...VALUE_OPTIONS, ...LIST_OPTIONS), fc.string()).map(([n, v]) => `--${n}=${v}`),
      fc.constant('-h'),
    );
    const command = fc.constantFrom('wrap', 'serve', 'proxy', 'connect', 'encode', 'decode', 'scan');
    fc.assert(
      fc.property(command, option, ours, (cmd, name, value) => {
        expect(() => parseCommandLine([cmd, `--${name}`, value, 'server'])).toThrow(`write --${name}=${value}`);
        const joined = parseCommandLine([cmd, `--${name}=${value}`, 'server']);
        expect((LIST_OPTIONS as readonly string[]).includes(name) ? joined.lists : joined.values).toEqual({
          [name]: (LIST_OPTIONS as readonly string[]).includes(name) ? [value] : value,
        });
      }),
      runs(200),
    );
  });

  it('other commands: options anywhere before --, positionals kept', () => {
    expect(parseCommandLine(['scan', '--', '-odd-file'])).toMatchObject({ command: 'scan', positionals: ['-odd-file'] });
    expect(parseCommandLine(['--prefix', 'p_x_', 'encode', '--suffix=_y'])).toMatchObject({
      command: 'encode',
      values: { prefix: 'p_x_', suffix: '_y' },
      positionals: [],
    });
  });
});

describe('the CLI', () => {
  it('passes every argument from the server command on to the server, even ours', () => {
    const code = 'import json, sys; sys.stderr.write(json.dumps(sys.argv[1:]) + "\\n")';
    const r = cli(['wrap', '--prefix', '__cuaf_', 'python3', '-c', code, '--guard', '--', '--prefix', 'x', '-h']);
    expect(r.stderr).toBe('["--guard", "--", "--prefix", "x", "-h"]\n');
    expect(r.code).toBe(0);
  });

  it('an SDK client reaches a server wrapped without -- (as MCP Inspector starts it), banner and all', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'wrap', '--guard', 'python3', fixture('cli-terms-server.py'), '--banner'],
      cwd: ROOT,
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    const client = new Client({ name: 'cli-test', version: '1.0.0' });
    await client.connect(transport);
    const { tools } = await client.listTools();
    const echo = tools.find((t) => t.name === 'echo')!;
    expect((await client.callTool({ name: echo.name, arguments: { text: 'hi' } })).content).toEqual([
      { type: 'text', text: 'echo got {"text": "hi"}' },
    ]);
    await client.close();
    expect(stderr).toMatch(/from the server: skipped message 1 /);
  }, 30_000);

  it('--suffix sets the token suffix, beside --prefix and --hex-case', () => {
    const options = { prefix: '__cuaf_', suffix: '_zz', hexCase: 'upper' } as const;
    const body = '{"jsonrpc":"2.0","id":1,"result":"Qwen 阿里"}\n';
    const enc = cli(['encode', '--prefix', options.prefix, '--suffix', options.suffix, '--hex-case', 'upper'], body);
    expect(enc.stdout).toBe(JSON.stringify(createCodec(options).encodeMessage(JSON.parse(body))) + '\n');
    expect(enc.stdout).toContain('_zz"');
    expect(cli(['decode', '--prefix=__cuaf_', '--suffix=_zz'], enc.stdout).stdout).toBe(body);
  });

  it('--hex-case takes lower and upper, and --fold ascii and nfkc, and writes what they say', () => {
    const body = '{"jsonrpc":"2.0","id":1,"result":"Qwen ｑｗｅｎ"}\n';
    for (const hexCase of ['lower', 'upper'] as const) {
      for (const fold of ['ascii', 'nfkc'] as const) {
        const r = cli(['encode', '--hex-case', hexCase, '--fold', fold], body);
        expect(r.code).toBe(0);
        expect(r.stdout).toBe(JSON.stringify(createCodec({ hexCase, fold }).encodeMessage(JSON.parse(body))) + '\n');
      }
    }
  });

  it('usage errors: one line on stderr, exit code 2', () => {
    const cases = [
      ['wrap'],
      ['wrap', '--'],
      ['wrap', '--guard'],
      ['wrap', '--prefix'],
      ['wrap', '--prefix', '--guard', 'true'], // (taken as the prefix, the guard would be off)
      ['wrap', '--guard=1', 'true'],
      ['wrap', '--gaurd', 'true'],
      ['wrap', '--suffix', 'a', '--suffix', 'b', 'true'],
      ['wrap', '--suffix', '0x', 'true'], // a suffix must not start with a hex digit
      ['wrap', '--max-message-bytes', '0', 'true'],
      ['wrap', '--framing', 'sse', 'true'],
      ['encode', '--fold', 'nfkd'],
      ['encode', 'file.json'],
      ['scan', '--prefix', 'x'],
      ['frobnicate'],
    ];
    for (const [k, r] of cliRuns(cases).entries()) {
      const args = cases[k]!;
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
      expect(r.stderr, args.join(' ')).toMatch(/^mcp-payload-codec: /);
    }
  });

  it('help: --help and -h anywhere before the server command, exit code 0', () => {
    const helps = cliRuns([['--help'], ['-h'], ['wrap', '--help'], ['wrap', '--guard', '-h']]);
    for (const r of helps) {
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/^Usage: mcp-payload-codec/);
    }
    expect(helps[0]!.stdout).toMatch(/--suffix STRING +token suffix \(default: __\)/); // (beside --prefix and --hex-case)
  });
});
