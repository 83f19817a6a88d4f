// The help: `--help` short and in one style, and each command's help listing exactly the options
// the parser takes for that command (so help, parser, docs/CLI.md and the config schema, all
// made from the tables in src/cli/args.ts, cannot drift apart).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { committed, render } from '../scripts/gen-cli-help.ts';
import { COMMANDS, checkApplies, FLAG_OPTIONS, LIST_OPTIONS, type OptionName, parseCommandLine, VALUE_OPTIONS } from '../src/cli/args.ts';
import { helpText } from '../src/cli/help/index.ts';
import { UsageError } from '../src/cli/usage-error.ts';
import { cli, cliRuns } from './fixtures/cli-session.ts';

const ALL: OptionName[] = [...VALUE_OPTIONS, ...LIST_OPTIONS, ...FLAG_OPTIONS];
const isFlag = (name: string) => (FLAG_OPTIONS as readonly string[]).includes(name);

/** Whether the parser takes `--name` for `command`: its real path, from the argument on. */
function takes(command: (typeof COMMANDS)[number], name: OptionName): boolean {
  const line = parseCommandLine([command, isFlag(name) ? `--${name}` : `--${name}=x`]);
  try {
    checkApplies(line, command);
    return true;
  } catch (e) {
    if (e instanceof UsageError) return false;
    throw e;
  }
}

/** The options a help text lists, each with the value name it shows ('' for none). */
function listed(text: string): Map<string, string> {
  const options = text.slice(text.indexOf('\nOptions:\n'));
  const rows = [...options.matchAll(/^ {2}(?:-h, )?--([a-z-]+)( [^ ].*?)?(?: {2,}|$)/gm)];
  return new Map(rows.map((m) => [m[1]!, (m[2] ?? '').trim()]));
}

describe('mcp-payload-codec --help', () => {
  const text = helpText();

  it('is under 30 lines: every command on one line, then the common options', () => {
    const lines = text.trimEnd().split('\n');
    expect(lines.length).toBeLessThan(30);
    const commands = text
      .slice(text.indexOf('Commands:\n'), text.indexOf('\n\n', text.indexOf('Commands:\n')))
      .split('\n')
      .slice(1);
    expect(commands.map((l) => l.trim().split(' ')[0])).toEqual(COMMANDS);
    expect(text).toContain('mcp-payload-codec COMMAND --help');
  });

  it('lists the common options as each command does', () => {
    for (const [name, arg] of listed(text.replace('Common options:', 'Options:')))
      for (const c of COMMANDS.filter((c) => !['scan', 'help'].includes(c)))
        expect(listed(helpText(c)).get(name), `${c} --${name}`).toBe(arg);
  });
});

describe('COMMAND --help', () => {
  it.each(COMMANDS)('%s lists exactly the options the parser takes for it, each with its value', (command) => {
    const shown = listed(helpText(command));
    expect([...shown.keys()].toSorted()).toEqual(ALL.filter((n) => takes(command, n)).toSorted());
    for (const [name, arg] of shown) expect(arg === '', `--${name} shows ${JSON.stringify(arg)}`).toBe(isFlag(name));
  });

  it('every help is in one style: Usage first, lines of at most 100 characters', () => {
    for (const text of [helpText(), ...COMMANDS.map((c) => helpText(c))]) {
      expect(text).toMatch(/^Usage: mcp-payload-codec /);
      for (const line of text.split('\n')) expect(line.length, line).toBeLessThanOrEqual(100);
    }
  });

  it('the CLI prints it for COMMAND --help, -h and help COMMAND, exit code 0; help of no command is refused', () => {
    const wrap = cli(['wrap', '--help']);
    expect(wrap).toMatchObject({ code: 0, stdout: helpText('wrap'), stderr: '' });
    // (the rest decided in one process: help prints and ends before anything starts)
    const [helpWrap, serve, help, nope] = cliRuns([['help', 'wrap'], ['serve', '--port', '1', '-h'], ['help'], ['help', 'nope']]);
    expect(helpWrap).toMatchObject({ code: 0, stdout: wrap.stdout });
    expect(serve).toMatchObject({ code: 0, stdout: helpText('serve') });
    expect(help).toMatchObject({ code: 0, stdout: helpText() });
    expect(nope).toMatchObject({
      code: 2,
      stdout: '',
      stderr: 'mcp-payload-codec: unknown command "nope" (see --help)\n',
    });
  });
});

describe('the docs', () => {
  it('docs/CLI.md shows each help as the CLI prints it (after a help or option changes: npm run docs:cli)', () => {
    expect(committed()).toBe(render());
  });

  it("the README's CLI table names every command", () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    const table = readme.slice(readme.indexOf('| command |'), readme.indexOf('\n\n', readme.indexOf('| command |')));
    for (const c of COMMANDS.filter((c) => c !== 'help')) expect(table, c).toMatch(new RegExp(`^\\| .*\`${c}[ \`]`, 'm'));
  });
});
