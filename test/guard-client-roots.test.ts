// fileRoots: the local paths of a client's roots/list answer, fixed cases written by hand (the
// URI forms clients send: plain, localhost, percent-encoded, Windows drives, other schemes).
import { describe, expect, it } from 'vitest';
import { fileRoots } from '../src/guard/client-roots.ts';

const roots = (...uris: string[]) => ({ roots: uris.map((uri) => ({ uri, name: 'n' })) });

describe('fileRoots', () => {
  it('takes the file: roots as paths, decoded; drops other schemes', () => {
    expect(fileRoots(roots('file:///srv/work', 'file://localhost/home/a%20b', 'https://example.com/x'))).toEqual([
      '/srv/work',
      '/home/a b',
    ]);
  });

  it('reads Windows roots when one names a drive (then a share is a UNC path)', () => {
    expect(fileRoots(roots('file:///C:/Users/a', 'file://server/share/dir'))).toEqual(['C:/Users/a', '\\\\server/share/dir']);
  });

  it('refuses an answer without a roots array; an empty list gives no paths', () => {
    expect(() => fileRoots({ nope: [] })).toThrow(/holds no roots array/);
    expect(fileRoots(roots())).toEqual([]);
  });
});
