// Every relative link in README.md and docs/*.md points at a file that exists, and a link with
// a #fragment at a heading of that file (GitHub's anchors), so moving a section between the
// README and docs/ cannot leave a reader at a dead link.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');
const FILES = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** The text outside fenced code blocks and inline code, where a link is a link. */
function prose(markdown: string): string {
  return markdown.replace(/^\s*```[^\n]*\n[\s\S]*?^\s*```\s*$/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
function anchor(heading: string): string {
  return heading
    .replace(/`/g, '')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchors(file: string): Set<string> {
  const text = prose(readFileSync(join(ROOT, file), 'utf8'));
  return new Set([...text.matchAll(/^#{1,6}\s+(.*)$/gm)].map((m) => anchor(m[1]!)));
}

const links = FILES.flatMap((file) =>
  [...new Set([...prose(readFileSync(join(ROOT, file), 'utf8')).matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!))]
    .filter((target) => !/^[a-z]+:/i.test(target))
    .map((target) => ({ file, target })),
);

describe('links between the README and docs/', () => {
  it('finds the links (a parser that found none would pass)', () => {
    expect(links.filter((l) => l.file === 'README.md').length).toBeGreaterThanOrEqual(8);
    expect(links.some((l) => l.target.includes('#'))).toBe(true);
  });

  it.each(links.map((l) => [`${l.file} -> ${l.target}`, l] as const))('%s', (_, { file, target }) => {
    const [path, fragment] = target.split('#') as [string, string | undefined];
    const to = path === '' ? file : normalize(join(dirname(file), path));
    expect(existsSync(join(ROOT, to)), `${file}: ${target} names no file`).toBe(true);
    if (fragment !== undefined) expect(anchors(to).has(fragment), `${file}: ${to} has no heading #${fragment}`).toBe(true);
  });
});
