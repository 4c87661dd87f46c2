import { BrokerError, parseSubscription, ProtocolError, type PullRequest } from '@mqkit/core';
import { describe, expect, it } from 'vitest';
import { MessageDecodeError } from '../errors/message-decode.error';
import { encodeMessageRecord } from '../protocol/message-record.encoder';
import { remotingCommand } from '../protocol/remoting-command';
import { parsePullResponse, pullMessageRequest } from './pull-message.codec';

const mq = { topic: 'T', brokerName: 'broker-a', queueId: 2 };
const request: PullRequest = {
  group: 'g',
  mq,
  offset: 100,
  maxMsgs: 32,
  maxBytes: 262144,
  subscription: parseSubscription('T', 'TagA || TagB', 1700000000000),
  suspendMs: 15000,
  timeoutMs: 30000,
};
const record = (queueOffset: number, tag: string) =>
  encodeMessageRecord({
    topic: 'T',
    queueId: 2,
    queueOffset,
    commitLogOffset: queueOffset * 200,
    body: Buffer.from(`m${queueOffset}`),
    properties: { TAGS: tag },
    bornTimestamp: 1,
    bornHost: '10.0.0.1:1',
    storeTimestamp: 2,
    storeHost: '127.0.0.1:10911',
  });
const header = { nextBeginOffset: '103', minOffset: '0', maxOffset: '103', suggestWhichBrokerId: '1' };

describe('pull message codec', () => {
  it('builds the PULL_MESSAGE header as the Java push consumer does', () => {
    expect(pullMessageRequest(request)).toEqual({
      code: 11,
      extFields: {
        consumerGroup: 'g',
        topic: 'T',
        queueId: 2,
        queueOffset: '100',
        maxMsgNums: 32,
        sysFlag: 0x6,
        commitOffset: '0',
        suspendTimeoutMillis: 15000,
        subscription: 'TagA || TagB',
        subVersion: '1700000000000',
        expressionType: 'TAG',
        maxMsgBytes: 262144,
        bname: 'broker-a',
      },
    });
  });

  it('sets COMMIT_OFFSET only for a commit offset above 0', () => {
    expect(pullMessageRequest({ ...request, commitOffset: 57 }).extFields).toMatchObject({
      sysFlag: 0x7,
      commitOffset: '57',
    });
    expect(pullMessageRequest({ ...request, commitOffset: 0 }).extFields).toMatchObject({
      sysFlag: 0x6,
      commitOffset: '0',
    });
    expect(pullMessageRequest({ ...request, suspendMs: 0 }).extFields).toMatchObject({ sysFlag: 0x4 });
  });

  it("decodes a FOUND body, adds MIN_OFFSET/MAX_OFFSET and keeps every record for the caller's exact tag check", () => {
    const body = Buffer.concat([record(100, 'TagA'), record(101, 'TagC'), record(102, 'TagB')]);
    const { result, suggestWhichBrokerId } = parsePullResponse(
      remotingCommand({ code: 0, opaque: 1, flag: 1, remark: 'FOUND', extFields: header, body }),
      mq,
    );
    expect(result).toMatchObject({ status: 'FOUND', nextBeginOffset: 103, minOffset: 0, maxOffset: 103 });
    expect(
      result.messages.map((m) => [
        m.queueOffset,
        m.properties.TAGS,
        m.properties.MIN_OFFSET,
        m.properties.MAX_OFFSET,
        m.brokerName,
      ]),
    ).toEqual([
      [100, 'TagA', '0', '103', 'broker-a'],
      [101, 'TagC', '0', '103', 'broker-a'],
      [102, 'TagB', '0', '103', 'broker-a'],
    ]);
    expect(suggestWhichBrokerId).toBe(1);
  });

  it('adds offsetDelta for static topics', () => {
    const body = record(5, 'TagA');
    const { result } = parsePullResponse(
      remotingCommand({ code: 0, opaque: 1, flag: 1, extFields: { ...header, offsetDelta: '1000' }, body }),
      mq,
    );
    expect(result.messages[0]!.queueOffset).toBe(1005);
  });

  it.each([
    [19, 'NO_NEW_MSG'],
    [20, 'NO_MATCHED_MSG'],
    [21, 'OFFSET_ILLEGAL'],
  ])('maps code %i to %s with no messages', (code, status) => {
    const { result } = parsePullResponse(remotingCommand({ code, opaque: 1, flag: 1, extFields: header }), mq);
    expect(result).toEqual({ status, nextBeginOffset: 103, minOffset: 0, maxOffset: 103, messages: [] });
  });

  it('turns any other code into a BrokerError naming the broker', () => {
    let caught: unknown;
    try {
      parsePullResponse(remotingCommand({ code: 26, opaque: 1, flag: 1, remark: 'subscription group not exist' }), mq);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(BrokerError);
    expect(caught).toMatchObject({ responseCode: 26, brokerName: 'broker-a' });
  });

  it('refuses missing or unsafe offsets and bad bodies with typed errors', () => {
    expect(() =>
      parsePullResponse(
        remotingCommand({ code: 19, opaque: 1, flag: 1, extFields: { minOffset: '0', maxOffset: '1' } }),
        mq,
      ),
    ).toThrow(ProtocolError);
    expect(() =>
      parsePullResponse(
        remotingCommand({ code: 19, opaque: 1, flag: 1, extFields: { ...header, maxOffset: '9007199254740993' } }),
        mq,
      ),
    ).toThrow(ProtocolError);
    expect(() =>
      parsePullResponse(
        remotingCommand({ code: 0, opaque: 1, flag: 1, extFields: header, body: Buffer.from([1, 2, 3]) }),
        mq,
      ),
    ).toThrow(MessageDecodeError);
  });
});
