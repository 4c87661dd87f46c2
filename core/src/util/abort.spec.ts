import { describe, expect, it } from 'vitest';
import { childController, untilAborted } from './abort';

describe('childController', () => {
  it('aborts with its parent and leaves no listener on it once aborted itself', async () => {
    const parent = new AbortController();
    const a = childController(parent.signal);
    const b = childController(parent.signal);
    b.abort();
    parent.abort(new Error('stop'));
    expect(a.signal.aborted).toBe(true);
    expect((a.signal.reason as Error).message).toBe('stop');
    expect(childController(parent.signal).signal.aborted).toBe(true);
  });

  it('takes many children without warnings about listener counts', () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    const parent = childController(new AbortController().signal);
    for (let i = 0; i < 50; i++) childController(parent.signal);
    return new Promise<void>((resolve) =>
      setImmediate(() => {
        process.off('warning', onWarning);
        expect(warnings).toEqual([]);
        resolve();
      }),
    );
  });
});

describe('untilAborted', () => {
  it('resolves on the promise or on abort, whichever comes first, and never rejects', async () => {
    const c = new AbortController();
    const never = new Promise(() => undefined);
    const wait = untilAborted(never, c.signal);
    c.abort();
    await wait;
    await untilAborted(Promise.reject(new Error('x')), new AbortController().signal);
  });
});
