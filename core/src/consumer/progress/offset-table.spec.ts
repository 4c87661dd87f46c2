import { describe, expect, it } from 'vitest';
import { OffsetTable } from './offset-table';

const mq = { topic: 'T', brokerName: 'b', queueId: 1 };

describe('OffsetTable (RocketMQ updateOffset rules)', () => {
  it('absent: set; increaseOnly: max; otherwise overwrite', () => {
    const t = new OffsetTable();
    expect(t.get(mq)).toBe(-1);
    t.update(mq, 10, true);
    expect(t.get(mq)).toBe(10);
    t.update(mq, 5, true);
    expect(t.get(mq)).toBe(10);
    t.update(mq, 5, false);
    expect(t.get(mq)).toBe(5);
  });

  it('tracks dirty entries and lowering resets until persisted', () => {
    const t = new OffsetTable();
    t.load(mq, 7);
    expect(t.select().filter((e) => e.dirty)).toHaveLength(0);
    t.reset(mq, 3);
    const [entry] = t.select([mq]);
    expect(entry).toMatchObject({ offset: 3, lowering: true, dirty: true });
    t.markPersisted([{ entry: entry!, offset: 3, lowering: true }]);
    expect(t.select([mq])[0]).toMatchObject({ lowering: false, dirty: false });
    t.remove(mq);
    expect(t.has(mq)).toBe(false);
  });
});
