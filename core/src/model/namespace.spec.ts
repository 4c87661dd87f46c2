import { describe, expect, it } from 'vitest';
import { withoutNamespace, wrapNamespace } from './namespace';

describe("RocketMQ's namespace wrapping", () => {
  it.each([
    ['T', 'ns%T'],
    ['ns%T', 'ns%T'],
    ['%RETRY%G', '%RETRY%ns%G'],
    ['%RETRY%ns%G', '%RETRY%ns%G'],
    ['%DLQ%G', '%DLQ%ns%G'],
    ['TBW102', 'TBW102'],
    ['RMQ_SYS_TRACE_TOPIC', 'RMQ_SYS_TRACE_TOPIC'],
    ['rmq_sys_x', 'rmq_sys_x'],
    ['CID_RMQ_SYS_G', 'CID_RMQ_SYS_G'],
    ['other%T', 'ns%other%T'],
  ])('wraps %s as %s, and unwraps it back', (name, wrapped) => {
    expect(wrapNamespace('ns', name)).toBe(wrapped);
    if (!['ns%T', '%RETRY%ns%G'].includes(name)) expect(withoutNamespace('ns', wrapped)).toBe(name);
  });

  it('leaves names alone without a namespace, and names of another namespace when unwrapping', () => {
    expect(wrapNamespace(undefined, 'T')).toBe('T');
    expect(wrapNamespace('', 'T')).toBe('T');
    expect(withoutNamespace('ns', 'other%T')).toBe('other%T');
    expect(withoutNamespace('ns', '%RETRY%other%G')).toBe('%RETRY%other%G');
    expect(withoutNamespace(undefined, 'ns%T')).toBe('ns%T');
  });
});
