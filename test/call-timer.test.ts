// guard/call-timer.ts on vitest's fake clock: when a request is answered for the server, what the
// answer and the cancellation say, which answers are late, how progress extends a request and
// where the cap stops it, and the bounds. The timer is transport-neutral, so its families are
// held here to the millisecond; the transports' call-timeout tests (cli-wrap, serve, the HTTP
// pieces, the SDK wrappers) keep a few cases each on real processes and sockets for the wiring.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AuditEntry } from '../src/guard/audit.ts';
import { CallTimer, type CallTimerOptions, MAX_TRACKED, type TimedOut } from '../src/guard/call-timer.ts';

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
});
afterEach(() => {
  vi.useRealTimers();
});

/** A timer whose timeouts, audit entries and log lines are recorded in order. */
function timer(o: Partial<CallTimerOptions> = {}) {
  const events: (TimedOut | AuditEntry | string)[] = [];
  const timedOut: TimedOut[] = [];
  const logs: string[] = [];
  const t = new CallTimer({
    limitMs: 1000,
    onTimeout: (x) => {
      timedOut.push(x);
      events.push(x);
    },
    onAudit: (e) => void events.push(e),
    log: (l) => {
      logs.push(l);
      events.push(l);
    },
    ...o,
  });
  return { t, timedOut, logs, events, ids: () => timedOut.map((x) => x.raw) };
}

describe('CallTimer: the limit', () => {
  it('answers a tools/call at the limit, not before: an isError result, and a cancellation under the id as written', () => {
    const { t, timedOut, events } = timer({ limitMs: 1500 });
    const ID = '9007199254740993';
    expect(t.track(ID, 'tools/call', 'slow')).toBe(true);
    vi.advanceTimersByTime(1499);
    expect(timedOut).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(timedOut).toEqual([
      {
        raw: ID,
        method: 'tools/call',
        tool: 'slow',
        answer: {
          jsonrpc: '2.0',
          id: expect.objectContaining({ text: ID }),
          result: { content: [{ type: 'text', text: 'no answer from the server within 1.5 s' }], isError: true },
        },
        cancel: `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":${ID},"reason":"timeout"}}`,
      },
    ]);
    // The trail first, then the answer, then the log line.
    expect(events.map((e) => (typeof e === 'string' ? 'log' : 'decision' in e ? e.decision : 'answer'))).toEqual([
      'timed-out',
      'answer',
      'log',
    ]);
    expect(events[0]).toEqual({ time: new Date().toISOString(), request: ID, tool: 'slow', decision: 'timed-out', rule: 'timeout' });
    expect(t.size).toBe(0);
  });

  it('answers any other request with error -32001 (and no tool in its trail)', () => {
    const { t, timedOut, events } = timer();
    t.track('"r"', 'resources/list');
    vi.advanceTimersByTime(1000);
    expect(timedOut.map((x) => x.answer)).toEqual([
      {
        jsonrpc: '2.0',
        id: expect.objectContaining({ text: '"r"' }),
        error: { code: -32001, message: 'no answer from the server within 1 s' },
      },
    ]);
    expect(JSON.stringify(timedOut[0]!.answer)).toBe(
      '{"jsonrpc":"2.0","id":"r","error":{"code":-32001,"message":"no answer from the server within 1 s"}}',
    );
    expect(events[0]).not.toHaveProperty('tool');
  });

  it('times each request from its own start, and answers them in the order they fall due', () => {
    const { t, ids } = timer();
    t.track('1', 'ping');
    vi.advanceTimersByTime(300);
    t.track('2', 'ping');
    t.track('3', 'ping');
    expect(t.waiting()).toEqual(['1', '2', '3']);
    vi.advanceTimersByTime(700);
    expect(ids()).toEqual(['1']);
    expect(t.waiting()).toEqual(['2', '3']);
    vi.advanceTimersByTime(299);
    expect(ids()).toEqual(['1']);
    vi.advanceTimersByTime(1);
    expect(ids()).toEqual(['1', '2', '3']);
  });

  it('an answer in time ends the timing (answered, forget): no timeout, nothing late', () => {
    const { t, timedOut } = timer();
    t.track('1', 'tools/call', 'a');
    t.track('2', 'tools/call', 'b');
    vi.advanceTimersByTime(999);
    expect(t.answered('1')).toBe(false);
    t.forget('2');
    expect(t.watching).toBe(false);
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(10_000);
    expect(timedOut).toEqual([]);
    expect(t.answered('1')).toBe(false);
  });

  it('a reused id keeps the first timer', () => {
    const { t, ids } = timer();
    expect(t.track('7', 'ping')).toBe(true);
    vi.advanceTimersByTime(600);
    expect(t.track('7.0', 'ping')).toBe(false);
    vi.advanceTimersByTime(400);
    expect(ids()).toEqual(['7']);
  });
});

describe('CallTimer: late answers', () => {
  it('drops the late answer once, says so, and awaits the id again when it is reused', () => {
    const { t, logs } = timer();
    t.track('"x"', 'ping');
    vi.advanceTimersByTime(1000);
    expect(t.watching).toBe(true);
    expect(t.answered('"x"')).toBe(true);
    expect(logs.at(-1)).toBe(`--call-timeout: dropped the server's late answer to "x"`);
    expect(t.answered('"x"')).toBe(false);
    expect(t.watching).toBe(false);
    t.track('"y"', 'ping');
    vi.advanceTimersByTime(1000);
    t.track('"y"', 'ping'); // (the id used again: its new answer is the one awaited)
    expect(t.answered('"y"')).toBe(false);
  });

  it('matches ids as the server parsed them (either way round), and keeps ids past 2^53 apart', () => {
    const { t, timedOut } = timer();
    const spelled = [
      ['"a\\u0041"', '"aA"'],
      ['"bB"', '"b\\u0042"'],
      ['1.0', '1'],
      ['2', '2.0'],
      ['1e1', '10'],
    ];
    for (const [sent] of spelled) t.track(sent!, 'ping');
    t.track('9007199254740993', 'ping');
    for (const [, answered] of spelled) expect(t.answered(answered!), answered).toBe(false);
    expect(t.answered('9007199254740992')).toBe(false);
    vi.advanceTimersByTime(1000);
    expect(timedOut.map((x) => x.raw)).toEqual(['9007199254740993']);
    expect(t.answered('9007199254740992')).toBe(false);
    expect(t.answered('9007199254740993')).toBe(true);
    // Late answers too.
    for (const [sent] of spelled) t.track(sent!, 'ping');
    vi.advanceTimersByTime(1000);
    for (const [, answered] of spelled) expect(t.answered(answered!), answered).toBe(true);
  });
});

describe('CallTimer: progress', () => {
  it('restarts the timer of the request with that token, from the progress', () => {
    const { t, ids } = timer();
    t.track('1', 'tools/call', 'p', 't1');
    t.track('2', 'tools/call', 'q', 't2');
    vi.advanceTimersByTime(900);
    t.progress('t1');
    t.progress('other'); // (no such token: nothing)
    vi.advanceTimersByTime(100);
    expect(ids()).toEqual(['2']);
    vi.advanceTimersByTime(899);
    expect(ids()).toEqual(['2']);
    vi.advanceTimersByTime(1);
    expect(ids()).toEqual(['2', '1']);
  });

  it('keeps a request going up to maxMs from its start, however often it comes', () => {
    const { t, ids } = timer({ limitMs: 1000, maxMs: 2500 });
    t.track('1', 'tools/call', 'forever', 't');
    for (let at = 100; at < 2500; at += 100) {
      vi.advanceTimersByTime(100);
      expect(ids(), `${at} ms`).toEqual([]);
      t.progress('t');
    }
    vi.advanceTimersByTime(99);
    expect(ids()).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(ids()).toEqual(['1']);
  });

  it('caps at 10 times the limit by default; progress at the cap changes nothing', () => {
    const { t, ids } = timer({ limitMs: 300 });
    t.track('1', 'tools/call', 'forever', 't');
    for (let k = 0; k < 14; k++) {
      vi.advanceTimersByTime(200);
      t.progress('t');
    }
    // 2800 ms: the last progress left 200 ms to the cap, not another 300.
    vi.advanceTimersByTime(199);
    expect(ids()).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(ids()).toEqual(['1']);
    t.progress('t'); // (after the timeout: nothing to restart)
    vi.advanceTimersByTime(10_000);
    expect(ids()).toEqual(['1']);
  });

  it('a token taken up by a later request stays with it when the earlier one is answered', () => {
    const { t, ids } = timer();
    t.track('1', 'tools/call', 'a', 't');
    t.track('2', 'tools/call', 'b', 't');
    t.answered('1');
    vi.advanceTimersByTime(900);
    t.progress('t');
    vi.advanceTimersByTime(100);
    expect(ids()).toEqual([]);
    vi.advanceTimersByTime(900);
    expect(ids()).toEqual(['2']);
  });
});

describe('CallTimer: bounds and endings', () => {
  it(`times at most ${MAX_TRACKED} at once (said once), and remembers at most as many late ids`, () => {
    // (The real clock: the fake one scans all its timers at each step, and 10,000 of them make
    // that minutes. expireAll times them out; expireAll is held to the clock below.)
    vi.useRealTimers();
    const { t, logs, timedOut } = timer({ limitMs: 60_000 });
    let taken = 0;
    for (let k = 0; k < MAX_TRACKED; k++) taken += Number(t.track(String(k), 'ping'));
    expect(taken).toBe(MAX_TRACKED);
    expect(t.track(String(MAX_TRACKED), 'ping')).toBe(false);
    expect(t.track(String(MAX_TRACKED + 1), 'ping')).toBe(false);
    expect(logs).toEqual([`--call-timeout: over ${MAX_TRACKED} requests in flight; the ones beyond are not timed`]);
    t.expireAll();
    expect(timedOut).toHaveLength(MAX_TRACKED);
    // One more timed out: the oldest late id is forgotten, the rest still dropped.
    t.track('x', 'ping');
    t.expireAll();
    expect(t.answered('0')).toBe(false);
    expect(t.answered('1')).toBe(true);
    expect(t.answered('x')).toBe(true);
  });

  it('expireAll answers every request still timed, now, in the order sent', () => {
    const { t, ids } = timer();
    t.track('"b"', 'ping');
    t.track('"a"', 'tools/call', 'x');
    vi.advanceTimersByTime(10);
    t.expireAll();
    expect(ids()).toEqual(['"b"', '"a"']);
    vi.advanceTimersByTime(10_000);
    expect(ids()).toEqual(['"b"', '"a"']);
  });

  it('stop ends every timer and times nothing after', () => {
    const { t, timedOut } = timer();
    t.track('1', 'ping', undefined, 't');
    t.stop();
    expect(t.size).toBe(0);
    expect(vi.getTimerCount()).toBe(0); // (none left to hold the process open)
    expect(t.track('2', 'ping')).toBe(false);
    t.progress('t');
    vi.advanceTimersByTime(10_000);
    expect(timedOut).toEqual([]);
  });
});
