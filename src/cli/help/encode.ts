import type { CommandHelp } from './render.js';

export const ENCODE_HELP: CommandHelp = {
  usage: 'encode [options]',
  summary: 'stdin to stdout, terms aliased',
  about: ['Reads MCP messages on stdin and writes them to stdout with the terms aliased as tokens, byte for byte otherwise.'],
  options: { 'max-message-bytes': { text: 'a larger message ends it, exit code 1 (default: 536870912, 512 MiB)' } },
  notes: ['Exit status: 0; 1 if the input is not JSON or a message is too large (the reason on stderr); 2 for a usage error.'],
};
