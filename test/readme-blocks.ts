// The code blocks of a Markdown file, and each one rewritten into a script that checks what
// its comments claim. A claim is `// -> EXPECTED` at the end of an expression statement, or on
// the comment lines right below it; comment lines after it continue it (joined by a space).
// EXPECTED is a JavaScript value (deep-compared), or `throws Name`, `throws Name: message` or
// `throws Name { field: value, ... }` (the error's fields).

export interface Block {
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  lang: string;
  /** The words after the language (`no-run`). */
  flags: string[];
  code: string;
}

export function codeBlocks(file: string, markdown: string): Block[] {
  const blocks: Block[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^\s*```(\S*)(.*)$/.exec(lines[i]!);
    if (!open) continue;
    const start = i;
    const body: string[] = [];
    while (++i < lines.length && !/^\s*```\s*$/.test(lines[i]!)) body.push(lines[i]!);
    if (i === lines.length) throw new Error(`${file}:${start + 1}: code block never closed`);
    const indent = /^\s*/.exec(lines[start]!)![0].length;
    blocks.push({
      file,
      line: start + 1,
      lang: open[1]!,
      flags: open[2]!.trim().split(/\s+/).filter(Boolean),
      code: body.map((l) => l.slice(Math.min(indent, /^\s*/.exec(l)![0].length))).join('\n'),
    });
  }
  return blocks;
}

export function isRunnable(b: Block): boolean {
  return ['ts', 'js', 'typescript', 'javascript'].includes(b.lang) && !b.flags.includes('no-run');
}

export interface Claim {
  /** 1-based line in the Markdown file. */
  line: number;
  expression: string;
  expected: string;
}

const CLAIM = /^(\s*)(.*?);?\s*\/\/ -> (.*)$/;
const CLAIM_BELOW = /^\s*\/\/ -> (.*)$/;
const CONTINUED = /^\s*\/\/(?! ->)\s?(.*)$/;

/**
 * The block as a module that runs its statements and checks each claim with `__expect`
 * (defined by `prelude`), plus the claims found, so a caller can see that all of them ran.
 */
export function withChecks(b: Block): { code: string; claims: Claim[] } {
  const lines = b.code.split('\n');
  const out: string[] = [];
  const claims: Claim[] = [];
  for (let i = 0; i < lines.length; i++) {
    const m = CLAIM.exec(lines[i]!);
    let indent = m?.[1] ?? '';
    let expression = m?.[2] ?? '';
    let expected = m?.[3];
    const exprAt = i;
    if (!m || expression.trim() === '') {
      // A claim on the line(s) below a statement.
      const below = i + 1 < lines.length ? CLAIM_BELOW.exec(lines[i + 1]!) : null;
      if (!below || lines[i]!.trim() === '' || lines[i]!.trim().startsWith('//')) {
        out.push(lines[i]!);
        continue;
      }
      indent = /^\s*/.exec(lines[i]!)![0];
      expression = lines[i]!.trim().replace(/;$/, '');
      expected = below[1];
      i++;
      out.push('');
    }
    const parts = [expected!.trim()];
    while (i + 1 < lines.length && CONTINUED.test(lines[i + 1]!) && !CLAIM_BELOW.test(lines[i + 1]!)) {
      parts.push(CONTINUED.exec(lines[++i]!)![1]!.trim());
      out.push('');
    }
    const claim: Claim = { line: b.line + 1 + exprAt, expression, expected: parts.join(' ') };
    claims.push(claim);
    const thrown = /^throws (\w+)(?::\s*(.*)|\s+(\{.*\}))?$/.exec(claim.expected);
    const check = thrown
      ? `{ throws: ${JSON.stringify(thrown[1])}, message: ${JSON.stringify(thrown[2] ?? null)}, fields: () => (${thrown[3] ?? 'null'}) }`
      : `{ value: () => (${claim.expected}) }`;
    out.push(`${indent}await __expect(async () => (${expression}), ${check}, ${JSON.stringify(`${b.file}:${claim.line}`)});`);
  }
  return { code: out.join('\n'), claims };
}

/** Defines `__expect`; prepended (after the imports) to every rewritten block. */
export const prelude = `
import { isDeepStrictEqual as __equal, inspect as __inspect } from 'node:util';
let __checked = 0;
async function __expect(run, want, where) {
  let got, error;
  try { got = await run(); } catch (e) { error = e; }
  if (want.throws) {
    if (!error) throw new Error(where + ': expected to throw ' + want.throws + ', got ' + __inspect(got));
    if (error.name !== want.throws && error.constructor?.name !== want.throws) throw new Error(where + ': expected ' + want.throws + ', got ' + __inspect(error));
    if (want.message !== null && error.message.replace(/\\s+/g, ' ') !== want.message) throw new Error(where + ': message differs\\n got:  ' + error.message + '\\n want: ' + want.message);
    const fields = want.fields();
    for (const k of Object.keys(fields ?? {})) {
      if (!__equal(error[k], fields[k])) throw new Error(where + ': ' + k + ' is ' + __inspect(error[k]) + ', README says ' + __inspect(fields[k]));
    }
  } else {
    if (error) throw new Error(where + ': threw ' + __inspect(error));
    const w = want.value();
    if (!__equal(got, w)) throw new Error(where + ': got ' + __inspect(got, { depth: 9 }) + ', README says ' + __inspect(w, { depth: 9 }));
  }
  __checked++;
}
process.on('exit', (code) => { if (code === 0) process.stdout.write('\\n@@checked ' + __checked + '\\n'); });
`;
