import { describe, expect, it } from 'vitest';
import { ConnectionBeats } from './connection-beats';

const deferred = () => {
  let resolve!: () => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
};

describe('ConnectionBeats', () => {
  it('a heartbeat unanswered when its connection opens is what opened it; one taken before belongs to an older connection', async () => {
    const beats = new ConnectionBeats();
    // Nothing sent yet: a connection that opens is owed a heartbeat.
    expect(beats.opened('a')).toBe(true);
    const answer = deferred();
    beats.record('a', 1, answer.promise);
    expect(beats.has('a')).toBe(true);
    expect(beats.opened('a')).toBe(false);
    answer.resolve();
    expect(await beats.taken('a')).toBe(true);
    expect(await beats.taken('a', 1)).toBe(true);
    expect(await beats.taken('a', 2)).toBe(false);
    // Taken on the connection before: the next one to open is owed its own.
    expect(beats.opened('a')).toBe(true);
    expect(beats.has('a')).toBe(false);
  });

  it('a failed heartbeat leaves nothing; a close forgets a taken one and leaves an unanswered one to settle', async () => {
    const beats = new ConnectionBeats();
    const failing = deferred();
    beats.record('a', 1, failing.promise);
    failing.reject(new Error('busy'));
    expect(await beats.taken('a')).toBe(false);
    expect(beats.has('a')).toBe(false);

    const taken = deferred();
    beats.record('a', 2, taken.promise);
    taken.resolve();
    await beats.taken('a');
    beats.closed('a');
    expect(beats.has('a')).toBe(false);

    // A connection closed on purpose reports its close late, after a heartbeat for its successor was sent.
    const next = deferred();
    beats.record('a', 3, next.promise);
    beats.closed('a');
    expect(beats.opened('a')).toBe(false);
    next.resolve();
    expect(await beats.taken('a', 3)).toBe(true);
  });
});
