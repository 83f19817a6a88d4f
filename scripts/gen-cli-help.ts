// Writes the help section of docs/CLI.md: `mcp-payload-codec --help` and each command's
// `--help`, as the CLI prints them (src/cli/help/). test/cli-help.test.ts fails when the
// committed section is not what this renders (after an option or a help text changes).
// Run: npm run docs:cli
import { readFileSync, writeFileSync } from 'node:fs';
import { COMMANDS } from '../src/cli/args.ts';
import { helpText } from '../src/cli/help/index.ts';

const DOC = new URL('../docs/CLI.md', import.meta.url);
export const BEGIN = '<!-- help: written by npm run docs:cli, from src/cli/help/ -->';
export const END = '<!-- help: end -->';

const block = (title: string, text: string) => `### \`${title}\`\n\n\`\`\`text\n${text}\`\`\`\n`;

export const render = (): string =>
  [
    BEGIN,
    block('mcp-payload-codec --help', helpText()),
    ...COMMANDS.filter((c) => c !== 'help').map((c) => block(`mcp-payload-codec ${c} --help`, helpText(c))),
    END,
  ].join('\n');

/** The section as docs/CLI.md has it. */
export function committed(doc = readFileSync(DOC, 'utf8')): string {
  const start = doc.indexOf(BEGIN);
  const end = doc.indexOf(END);
  return start < 0 || end < 0 ? '' : doc.slice(start, end + END.length);
}

if (process.argv[1]?.includes('gen-cli-help')) {
  const doc = readFileSync(DOC, 'utf8');
  writeFileSync(DOC, doc.replace(committed(doc), render()));
}
