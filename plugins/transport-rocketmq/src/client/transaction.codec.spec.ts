import { describe, expect, it } from 'vitest';
import { encodeMessageRecord } from '../protocol/message-record.encoder';
import { remotingCommand } from '../protocol/remoting-command';
import {
  checkAnswerRequest,
  commitLogOffsetOf,
  endTransactionRequest,
  parseCheckTransactionState,
} from './transaction.codec';

const result = {
  status: 'SEND_OK' as const,
  msgId: 'UNIQ1',
  offsetMsgId: '7F00000100002A9F00000000000012AB',
  messageQueue: { topic: 'T', brokerName: 'broker-a', queueId: 1 },
  queueOffset: 42,
};

describe('transaction codec', () => {
  it('END_TRANSACTION as DefaultMQProducerImpl.endTransaction builds it: the commit-log offset from offsetMsgId, bname, 8/12/0', () => {
    expect(commitLogOffsetOf(result.offsetMsgId)).toBe(0x12ab);
    const request = endTransactionRequest({
      producerGroup: 'pg',
      result,
      state: 'COMMIT_MESSAGE',
      transactionId: 'UNIQ1',
    });
    expect(request).toEqual({
      code: 37,
      extFields: {
        topic: 'T',
        producerGroup: 'pg',
        tranStateTableOffset: '42',
        commitLogOffset: String(0x12ab),
        commitOrRollback: 8,
        fromTransactionCheck: false,
        msgId: 'UNIQ1',
        transactionId: 'UNIQ1',
        bname: 'broker-a',
      },
    });
    expect(
      endTransactionRequest({ producerGroup: 'pg', result, state: 'ROLLBACK_MESSAGE', transactionId: 'UNIQ1' })
        .extFields!.commitOrRollback,
    ).toBe(12);
    expect(
      endTransactionRequest({ producerGroup: 'pg', result, state: 'UNKNOW', transactionId: 'UNIQ1' }).extFields!
        .commitOrRollback,
    ).toBe(0);
    expect(() => commitLogOffsetOf('nope')).toThrow(/no commit-log offset/);
  });

  it('reads CHECK_TRANSACTION_STATE (the half message in the body, its PGROUP) and answers with the check header fields', () => {
    const body = encodeMessageRecord({
      topic: 'T',
      queueId: 1,
      queueOffset: 3,
      commitLogOffset: 900,
      body: Buffer.from('x'),
      properties: { PGROUP: 'pg', UNIQ_KEY: 'UNIQ1', TRAN_MSG: 'true' },
      bornTimestamp: 1,
      bornHost: '10.0.0.2:1',
      storeTimestamp: 2,
      storeHost: '127.0.0.1:10911',
    });
    const check = parseCheckTransactionState(
      remotingCommand({
        code: 39,
        opaque: 1,
        flag: 0,
        extFields: {
          topic: 'RMQ_SYS_TRANS_HALF_TOPIC',
          tranStateTableOffset: '7',
          commitLogOffset: '900',
          transactionId: 'UNIQ1',
          msgId: 'UNIQ1',
          bname: 'broker-a',
        },
        body,
      }),
    );
    expect(check).toMatchObject({
      producerGroup: 'pg',
      tranStateTableOffset: '7',
      commitLogOffset: '900',
      brokerName: 'broker-a',
    });
    expect(check.record.body.toString()).toBe('x');
    expect(checkAnswerRequest(check, 'COMMIT_MESSAGE').extFields).toEqual({
      topic: 'RMQ_SYS_TRANS_HALF_TOPIC',
      producerGroup: 'pg',
      tranStateTableOffset: '7',
      commitLogOffset: '900',
      commitOrRollback: 8,
      fromTransactionCheck: true,
      msgId: 'UNIQ1',
      transactionId: 'UNIQ1',
      bname: 'broker-a',
    });
    const noGroup = encodeMessageRecord({
      topic: 'T',
      queueId: 1,
      queueOffset: 3,
      commitLogOffset: 900,
      body: Buffer.from('x'),
      bornTimestamp: 1,
      bornHost: '10.0.0.2:1',
      storeTimestamp: 2,
      storeHost: '127.0.0.1:10911',
    });
    expect(() =>
      parseCheckTransactionState(
        remotingCommand({
          code: 39,
          opaque: 1,
          flag: 0,
          extFields: { tranStateTableOffset: '7', commitLogOffset: '900' },
          body: noGroup,
        }),
      ),
    ).toThrow(/PGROUP/);
  });
});
