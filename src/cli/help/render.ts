// Help text in one style, made from the option tables: `mcp-payload-codec --help` (the commands,
// one line each, and the options they share) and `COMMAND --help` (what it does and every option
// it takes, as args.ts's APPLIES says: the parser takes exactly the options its help lists).
import { APPLIES, COMMANDS, type Command, LIST_OPTIONS, type OptionName, optionsOf, VALUE_TYPES } from '../args.js';
import { OPTION_HELP, type OptionHelp } from './options.js';

export interface CommandHelp {
  /** The command line after `mcp-payload-codec `. */
  usage: string;
  /** One line for the list of commands. */
  summary: string;
  /** What it does, a string a paragraph. */
  about: readonly string[];
  /** What an option means for this command, where OPTION_HELP does not say it. */
  options?: { readonly [name in OptionName]?: Partial<OptionHelp> };
  /** Paragraphs after the options. */
  notes?: readonly string[];
}

const WIDTH = 100;
const COLUMN = 34;

/** `text` in lines of at most WIDTH, broken at spaces; the first starts at `first`, the rest at `indent`. */
function fill(text: string, indent: number, first = indent): string[] {
  const lines: string[] = [];
  let line = ' '.repeat(first);
  let empty = true;
  for (const word of text.split(' ')) {
    if (!empty && line.length + 1 + word.length > WIDTH) {
      lines.push(line);
      line = ' '.repeat(indent);
      empty = true;
    }
    line += (empty ? '' : ' ') + word;
    empty = false;
  }
  return [...lines, line];
}

/** Two columns: `left` (indented 2), then `text` from COLUMN, or on the next line when `left` is too wide. */
function row(left: string, text: string): string {
  const head = `  ${left}`;
  if (head.length > COLUMN - 2) return [head, ...fill(text, COLUMN)].join('\n');
  const [firstLine, ...rest] = fill(text, COLUMN);
  return [head.padEnd(COLUMN) + firstLine!.trimStart(), ...rest].join('\n');
}

/** The value an option takes, as its help writes it: `--fold ascii|nfkc`, `--port N`; none for a flag. */
function valueName(name: OptionName, arg: string | undefined): string {
  if (arg !== undefined) return ` ${arg}`;
  const type = VALUE_TYPES[name as keyof typeof VALUE_TYPES];
  switch (type?.kind) {
    case 'enum':
      return ` ${type.values.join('|')}`;
    case 'integer':
      return ' N';
    case 'duration':
      return ' DURATION';
    default:
      return '';
  }
}

/** The help line of option `name`, as `help` (a command's) words it. */
export function optionRow(name: OptionName, help?: CommandHelp): string {
  const { arg, text } = { ...OPTION_HELP[name], ...help?.options?.[name] };
  const left = name === 'help' ? '-h, --help' : `--${name}${valueName(name, arg)}`;
  return row(left, (LIST_OPTIONS as readonly string[]).includes(name) ? `${text} (repeatable)` : text);
}

const paragraphs = (texts: readonly string[] = []) => texts.map((t) => `\n${fill(t, 0).join('\n')}\n`).join('');

export function commandHelp(command: Command, help: CommandHelp): string {
  const options = optionsOf(command).map((name) => optionRow(name, help));
  return `Usage: mcp-payload-codec ${help.usage}\n${paragraphs(help.about)}\nOptions:\n${options.join('\n')}\n${paragraphs(help.notes)}`;
}

/** The options every command that reads MCP messages takes. */
export function sharedOptions(): OptionName[] {
  const readers = COMMANDS.filter((c) => APPLIES[c].length);
  return optionsOf(readers[0]!).filter((name) => readers.every((c) => optionsOf(c).includes(name)));
}

export function overview(about: string, helps: Record<Command, CommandHelp>, footer: string): string {
  const width = Math.max(...COMMANDS.map((c) => c.length)) + 2;
  const commands = COMMANDS.map((c) => `  ${c.padEnd(width)}${helps[c].summary}`);
  const options = sharedOptions().map((name) => optionRow(name));
  return `Usage: mcp-payload-codec COMMAND [options]\n\n${fill(about, 0).join('\n')}\n\nCommands:\n${commands.join('\n')}\n\nCommon options:\n${options.join('\n')}\n\n${footer}\n`;
}
