import type { CommandHelp } from './render.js';

export const HELP_HELP: CommandHelp = {
  usage: 'help [COMMAND]',
  summary: "this text, or a command's options (help COMMAND, as COMMAND --help)",
  about: ["Prints this tool's help, or COMMAND's: what it does and every option it takes."],
};
