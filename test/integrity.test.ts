// U+FFFD reports: positions and counts, document order, and never the content.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ArgumentIntegrityError,
  assertNoReplacementCharacters,
  findReplacementBytes,
  findReplacementCharacters,
  isFilterEnabled,
} from '../src/index.ts';
import { runs } from './arbitraries.ts';
import { referenceReports } from './reference-integrity.ts';

describe('findReplacementCharacters', () => {
  it('pins the 7.8 KB Chinese case', () => {
    const content = '汉'.repeat(2607) + '\uFFFD\uFFFD\uFFFD' + '字';
    const [r, ...rest] = findReplacementCharacters({ path: '/notes.md', content });
    expect(rest).toEqual([]);
    expect(r).toEqual({
      path: ['content'],
      parameterName: 'content',
      location: 'value',
      replacementCharacterCount: 3,
      loneSurrogateCount: 0,
      characterOffset: 2607,
      utf8ByteOffset: 7821,
    });
  });

  it('reports keys, nested strings and bare strings in document order', () => {
    const reports = findReplacementCharacters({ 'a\uFFFD': ['ok', { deep: 'x\uFFFDy\uFFFD' }], b: '😀\uFFFD' });
    expect(reports.map((r) => [r.path, r.location, r.replacementCharacterCount, r.characterOffset, r.utf8ByteOffset])).toEqual([
      [['a\uFFFD'], 'key', 1, 1, 1],
      [['a\uFFFD', 1, 'deep'], 'value', 2, 1, 1],
      [['b'], 'value', 1, 2, 4],
    ]);
    const long = '汉'.repeat(30000) + 'a😀'.repeat(10) + '\uD800\uFFFD';
    expect(findReplacementCharacters([long])).toEqual(referenceReports([long]));
    expect(findReplacementCharacters([long])[0]).toMatchObject({
      replacementCharacterCount: 2,
      loneSurrogateCount: 1,
      characterOffset: 30030,
      utf8ByteOffset: 90050,
    });
    expect(findReplacementCharacters('ab\uFFFD')).toEqual([
      {
        path: [],
        parameterName: '',
        location: 'value',
        replacementCharacterCount: 1,
        loneSurrogateCount: 0,
        characterOffset: 2,
        utf8ByteOffset: 2,
      },
    ]);
  });

  it('reports lone surrogates: a pair cut in two, which any UTF-8 writer stores as U+FFFD', () => {
    // 😀 is \uD83D\uDE00: a host that cut a string in UTF-16 units kept one half.
    const cut = '汉字'.repeat(3) + '\uD83D';
    expect(findReplacementCharacters({ content: cut, tail: '\uDE00ok', whole: '😀' })).toEqual([
      {
        path: ['content'],
        parameterName: 'content',
        location: 'value',
        replacementCharacterCount: 1,
        loneSurrogateCount: 1,
        characterOffset: 6,
        utf8ByteOffset: 18,
      },
      {
        path: ['tail'],
        parameterName: 'tail',
        location: 'value',
        replacementCharacterCount: 1,
        loneSurrogateCount: 1,
        characterOffset: 0,
        utf8ByteOffset: 0,
      },
    ]);
    // A reversed pair is two lone surrogates; a key can hold one too.
    expect(findReplacementCharacters({ 'k\uDE00\uD83D': 'x\uFFFD' })).toEqual([
      {
        path: ['k\uDE00\uD83D'],
        parameterName: 'k\uDE00\uD83D',
        location: 'key',
        replacementCharacterCount: 2,
        loneSurrogateCount: 2,
        characterOffset: 1,
        utf8ByteOffset: 1,
      },
      {
        path: ['k\uDE00\uD83D'],
        parameterName: 'k\uDE00\uD83D',
        location: 'value',
        replacementCharacterCount: 1,
        loneSurrogateCount: 0,
        characterOffset: 1,
        utf8ByteOffset: 1,
      },
    ]);
    expect(() => assertNoReplacementCharacters({ content: cut }, { toolName: 'write_file' })).toThrow(
      'MCP tool argument "content" of tool "write_file" contains 1 invalid UTF-8 replacement character(s) (U+FFFD, 1 of them lone UTF-16 surrogate(s) that UTF-8 writes as U+FFFD); the call was blocked before it reached the MCP server. First UTF-8 byte offset: 18.',
    );
  });

  it('agrees with the reference on arbitrary JSON values', () => {
    const withFffd = fc.string({ unit: fc.constantFrom('a', '汉', '\uFFFD', '😀', '\uD800', '\uDC00', 'é'), maxLength: 12 });
    const value = fc.letrec((tie) => ({
      v: fc.oneof(
        { depthSize: 'small' },
        withFffd,
        fc.integer(),
        fc.array(tie('v'), { maxLength: 4 }),
        fc.dictionary(withFffd, tie('v'), { maxKeys: 4 }),
      ),
    })).v;
    fc.assert(
      fc.property(value, (v) => {
        expect(findReplacementCharacters(v)).toEqual(referenceReports(v));
      }),
      runs(1000),
    );
  });
});

describe('assertNoReplacementCharacters', () => {
  it('passes clean arguments', () => {
    expect(() => assertNoReplacementCharacters({ content: '汉字', n: 1 })).not.toThrow();
  });

  it('names parameter, count and byte offset, never the content', () => {
    const args = { content: 'TOP-SECRET ' + '汉'.repeat(2607) + '\uFFFD\uFFFD\uFFFD', other: 'more-secret\uFFFD' };
    let error: unknown;
    try {
      assertNoReplacementCharacters(args, { toolName: 'write_file' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ArgumentIntegrityError);
    const e = error as ArgumentIntegrityError;
    expect(e.message).toBe(
      'MCP tool argument "content" of tool "write_file" contains 3 invalid UTF-8 replacement character(s) (U+FFFD); ' +
        'the call was blocked before it reached the MCP server. First UTF-8 byte offset: 7832. 1 more string(s) are affected.',
    );
    expect(e.toolName).toBe('write_file');
    expect(e.reports.map((r) => r.parameterName)).toEqual(['content', 'other']);
    expect(JSON.stringify({ ...e, message: e.message })).not.toMatch(/SECRET|secret|汉/);
  });
});

describe('isFilterEnabled', () => {
  it('is true only for exactly "1"', () => {
    expect(isFilterEnabled({ MCP_MODEL_PAYLOAD_FILTER: '1' })).toBe(true);
    for (const v of ['', '0', '01', 'true', 'TRUE', 'yes', ' 1', '1 ', undefined]) {
      expect(isFilterEnabled({ MCP_MODEL_PAYLOAD_FILTER: v })).toBe(false);
    }
    expect(isFilterEnabled({})).toBe(false);
  });

  it('reads process.env by default, and does not throw where there is no process', () => {
    const saved = process.env.MCP_MODEL_PAYLOAD_FILTER;
    process.env.MCP_MODEL_PAYLOAD_FILTER = '1';
    try {
      expect(isFilterEnabled()).toBe(true);
      const realProcess = globalThis.process;
      Object.defineProperty(globalThis, 'process', { value: undefined, configurable: true, writable: true });
      let result: boolean;
      try {
        result = isFilterEnabled();
      } finally {
        Object.defineProperty(globalThis, 'process', { value: realProcess, configurable: true, writable: true });
      }
      expect(result).toBe(false);
    } finally {
      if (saved === undefined) delete process.env.MCP_MODEL_PAYLOAD_FILTER;
      else process.env.MCP_MODEL_PAYLOAD_FILTER = saved;
    }
  });
});

describe('findReplacementBytes', () => {
  const reference = (b: Uint8Array) => {
    let count = 0;
    let first = -1;
    for (let i = 0; i + 2 < b.length; i++) {
      if (b[i] === 0xef && b[i + 1] === 0xbf && b[i + 2] === 0xbd) {
        if (first < 0) first = i;
        count++;
      }
    }
    return { replacementCharacterCount: count, utf8ByteOffset: first };
  };

  it('pins the 7.8 KB Chinese case in bytes', () => {
    const bytes = new TextEncoder().encode('汉'.repeat(2607) + '\uFFFD\uFFFD\uFFFD');
    expect(findReplacementBytes(bytes)).toEqual({ replacementCharacterCount: 3, utf8ByteOffset: 7821 });
  });

  it('agrees with a byte loop, at every alignment and across its internal slices', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(0xef, 0xbf, 0xbd, 0x41, 0xe6), { maxLength: 80 }), fc.nat(40), (arr, pad) => {
        const b = new Uint8Array([...Array<number>(pad).fill(0x20), ...arr]);
        expect(findReplacementBytes(b)).toEqual(reference(b));
      }),
      runs(1000),
    );
    const big = new Uint8Array(600_000).fill(0x61);
    for (const at of [262_142, 262_143, 262_144, 524_285, 599_997]) big.set([0xef, 0xbf, 0xbd], at);
    expect(findReplacementBytes(big)).toEqual(reference(big));
  });
});
