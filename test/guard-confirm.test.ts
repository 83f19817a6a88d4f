// The confirmation rule and question, fixed cases written by hand: which tools the rule names,
// which clients can answer a form, and the question's text (names, never values; long lists cut).
import { describe, expect, it } from 'vitest';
import { CANNOT_ASK, canElicitForm, confirm, confirmationParams, needsConfirmation } from '../src/guard/confirm.ts';
import { NoAnswer } from '../src/guard/own-requests.ts';

describe('needsConfirmation', () => {
  it("names tools by name, and by 'destructive' those annotated destructive and not read-only", () => {
    const rule = ['destructive', 'deploy'];
    const cases: [string, Record<string, unknown> | undefined, boolean][] = [
      ['deploy', undefined, true],
      ['rm', { destructiveHint: true }, true],
      ['rm', { destructiveHint: true, readOnlyHint: true }, false],
      ['rm', { destructiveHint: 'true' }, false],
      ['rm', undefined, false], // (MCP's default says destructive; the rule asks for a tool that says so)
      ['read', { readOnlyHint: true }, false],
    ];
    for (const [name, annotations, expected] of cases)
      expect([name, annotations, needsConfirmation(rule, annotations ? { name, annotations } : { name })]).toEqual([
        name,
        annotations,
        expected,
      ]);
    expect(needsConfirmation(['deploy'], { name: 'rm', annotations: { destructiveHint: true } })).toBe(false);
  });
});

describe('canElicitForm', () => {
  it('an empty elicitation or one with form: yes; url only, none, or not an object: no', () => {
    expect([{ elicitation: {} }, { elicitation: { form: {} } }, { elicitation: { form: {}, url: {} } }].map(canElicitForm)).toEqual([
      true,
      true,
      true,
    ]);
    expect([{ elicitation: { url: {} } }, {}, undefined, { elicitation: true }].map(canElicitForm)).toEqual([false, false, false, false]);
  });
});

describe('confirmationParams', () => {
  it('names the tool and the argument names, a form of one boolean', () => {
    expect(confirmationParams({ tool: 'rm', argumentNames: ['path'] })).toEqual({
      message: 'Allow the tool "rm" to run with the arguments "path"?',
      requestedSchema: {
        type: 'object',
        properties: { allow: { type: 'boolean', title: 'Allow this call', default: false } },
        required: ['allow'],
      },
    });
    expect((confirmationParams({ tool: 'x', argumentNames: [] }) as { message: string }).message).toBe(
      'Allow the tool "x" to run without arguments?',
    );
    const many = Array.from({ length: 23 }, (_, i) => `a${i}`);
    expect((confirmationParams({ tool: 'x', argumentNames: many }) as { message: string }).message).toMatch(/"a19", and 3 more\?$/);
  });
});

describe('confirm', () => {
  const request = { tool: 'rm', argumentNames: ['path'] };
  it('maps yes, no, no answer, a failure and no asker to the outcome', async () => {
    expect(await confirm(request, async () => true)).toBeUndefined();
    expect(await confirm(request, async () => false)).toEqual({ decision: 'declined', reason: 'declined by the user' });
    expect(await confirm(request, () => Promise.reject(new NoAnswer(1500)))).toEqual({
      decision: 'timed-out',
      reason: 'no confirmation from the user within 1.5 s',
    });
    expect(await confirm(request, () => Promise.reject(new Error('the client answered error -32601')))).toEqual({
      decision: 'blocked',
      reason: 'asking the user for a confirmation failed: the client answered error -32601',
    });
    expect(await confirm(request, undefined)).toEqual({ decision: 'blocked', reason: CANNOT_ASK });
  });

  it('a yes after the client cancelled the call does not let it go on', async () => {
    const cancel = new AbortController();
    let yes: (v: boolean) => void = () => {};
    const outcome = confirm(request, () => new Promise((r) => (yes = r)), cancel.signal);
    cancel.abort();
    yes(true);
    expect((await outcome)?.decision).toBe('blocked');
  });
});
