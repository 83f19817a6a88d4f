import type { CommandHelp } from './render.js';

export const SCAN_HELP: CommandHelp = {
  usage: 'scan [FILE]',
  summary: 'report U+FFFD per NDJSON message and parameter',
  about: [
    'Reads NDJSON from FILE (or stdin) and reports each U+FFFD per message and parameter, never the content: a damaged key is named by its position ([key #2]). Lines split at \\n only (\\r is JSON whitespace).',
  ],
  notes: ['Exit status: 0 if none is found, 1 if any is, 2 if a line is not JSON (reported and skipped) or for a usage error.'],
};
