// U+FFFD reports: where replacement characters sit in a value, never what surrounds them.
import { ArgumentIntegrityError, type JsonPath } from './errors.js';
import { walkStrings } from './walk.js';

export interface IntegrityReport {
  /** Keys and indices from the root to the string (for a key: to the property it names). */
  readonly path: JsonPath;
  /** The first element of `path` as a string: the tool parameter; '' for a bare string. */
  readonly parameterName: string;
  /** Whether the U+FFFD is in a property value (or array element, or bare string) or a key. */
  readonly location: 'value' | 'key';
  readonly replacementCharacterCount: number;
  /** UTF-16 index of the first U+FFFD. */
  readonly characterOffset: number;
  /** UTF-8 byte length of the text before the first U+FFFD. */
  readonly utf8ByteOffset: number;
}

const FFFD = '\uFFFD';

/** UTF-8 length of s[0, end); a lone surrogate counts 3 bytes, as an encoder writes U+FFFD. */
export function utf8Length(s: string, end = s.length): number {
  let n = 0;
  for (let i = 0; i < end; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < end && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

function report(s: string, first: number, path: JsonPath, location: 'value' | 'key'): IntegrityReport {
  let count = 0;
  for (let i = first; i !== -1; i = s.indexOf(FFFD, i + 1)) count++;
  return {
    path,
    parameterName: path.length === 0 ? '' : String(path[0]),
    location,
    replacementCharacterCount: count,
    characterOffset: first,
    utf8ByteOffset: utf8Length(s, first),
  };
}

/**
 * One report per string (keys included) that holds U+FFFD, in document order (a key before its
 * value). Finding them is V8's native `indexOf`, which no copy into WASM memory can beat for
 * strings already in the JS heap; byte input goes through the WASM scanner instead.
 */
export function findReplacementCharacters(value: unknown): IntegrityReport[] {
  const reports: IntegrityReport[] = [];
  walkStrings(value, (s, path, location) => {
    const first = s.indexOf(FFFD);
    if (first !== -1) reports.push(report(s, first, path(), location));
  });
  return reports;
}

/** Throws {@link ArgumentIntegrityError} when `args` holds U+FFFD anywhere. */
export function assertNoReplacementCharacters(args: unknown, options: { toolName?: string } = {}): void {
  const reports = findReplacementCharacters(args);
  if (reports.length > 0) throw new ArgumentIntegrityError(reports, options.toolName);
}
