import type { CommandHelp } from './render.js';

export const DECODE_HELP: CommandHelp = {
  usage: 'decode [options]',
  summary: 'stdin to stdout, tokens restored',
  about: ['Reads MCP messages on stdin and writes them to stdout with the tokens restored to the terms, byte for byte otherwise.'],
  options: { 'max-message-bytes': { text: 'a larger message ends it, exit code 1 (default: 536870912, 512 MiB)' } },
  notes: ['Exit status: 0; 1 if the input is not JSON or a message is too large (the reason on stderr); 2 for a usage error.'],
};
