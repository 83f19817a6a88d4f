// Every help text: `mcp-payload-codec --help` and each command's, each command's words in a file
// of its own here. Loaded on its own, without the codec or the commands, so --help starts fast.
import type { Command } from '../args.js';
import { CONNECT_HELP } from './connect.js';
import { DECODE_HELP } from './decode.js';
import { ENCODE_HELP } from './encode.js';
import { HELP_HELP } from './help.js';
import { PROXY_HELP } from './proxy.js';
import { type CommandHelp, commandHelp, overview } from './render.js';
import { SCAN_HELP } from './scan.js';
import { SERVE_HELP } from './serve.js';
import { WRAP_HELP } from './wrap.js';

export const COMMAND_HELP: Record<Command, CommandHelp> = {
  wrap: WRAP_HELP,
  proxy: PROXY_HELP,
  connect: CONNECT_HELP,
  serve: SERVE_HELP,
  encode: ENCODE_HELP,
  decode: DECODE_HELP,
  scan: SCAN_HELP,
  help: HELP_HELP,
};

/** The help of `command`, or without one the tool's. */
export function helpText(command?: Command): string {
  if (command !== undefined) return commandHelp(command, COMMAND_HELP[command]);
  return overview(
    'Aliases vendor terms in MCP (JSON-RPC 2.0) traffic as hex tokens and back, and checks it for U+FFFD: between an MCP client and server, over stdio or Streamable HTTP, or on stdin.',
    COMMAND_HELP,
    'mcp-payload-codec COMMAND --help lists all the options of COMMAND. Usage errors exit with code 2.',
  );
}
