// The integrity reports a small, obviously correct recursive walk finds: one per string (key or
// value) that holds U+FFFD once written as UTF-8 (a lone surrogate becomes one), in document
// order, a key before its value. Recursive and Buffer-based: obviously right for the small
// values it is given.
import type { IntegrityReport } from '../src/index.ts';

type Path = (string | number)[];

export function referenceReports(value: unknown, path: Path = []): IntegrityReport[] {
  const one = (original: string, p: Path, location: 'value' | 'key'): IntegrityReport[] => {
    // What a server that writes UTF-8 would store (same UTF-16 length: a lone surrogate is one unit).
    const s = Buffer.from(original, 'utf8').toString('utf8');
    const i = s.indexOf('\uFFFD');
    if (i < 0) return [];
    const count = s.split('\uFFFD').length - 1;
    return [
      {
        path: p,
        parameterName: p.length ? String(p[0]) : '',
        location,
        replacementCharacterCount: count,
        loneSurrogateCount: count - (original.split('\uFFFD').length - 1),
        characterOffset: i,
        utf8ByteOffset: Buffer.byteLength(s.slice(0, i)),
      },
    ];
  };
  if (typeof value === 'string') return one(value, path, 'value');
  if (Array.isArray(value)) return value.flatMap((v, i) => referenceReports(v, [...path, i]));
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value).flatMap(([k, v]) => [...one(k, [...path, k], 'key'), ...referenceReports(v, [...path, k])]);
  }
  return [];
}
