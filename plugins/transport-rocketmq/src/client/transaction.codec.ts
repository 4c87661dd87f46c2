import { ProtocolError, type EndTransactionRequest, type MessageRecord } from '@mqkit/core';
import { formatLong } from '../protocol/checked-long';
import { decodeMessageRecords } from '../protocol/message-record.decoder';
import { RequestCode } from '../protocol/remoting-codes';
import type { RemotingCommand } from '../protocol/remoting-command';
import type { OutgoingRequest } from '../remoting/remoting-request';

/** EndTransactionRequestHeader.commitOrRollback: MessageSysFlag's commit and rollback types, 0 for UNKNOW. */
const COMMIT_OR_ROLLBACK = { COMMIT_MESSAGE: 0x8, ROLLBACK_MESSAGE: 0xc, UNKNOW: 0 } as const;

/** The commit-log offset inside an offset message id: its last 16 hex digits (MessageDecoder.decodeMessageId). */
export function commitLogOffsetOf(offsetMsgId: string): number {
  const hex = offsetMsgId.slice(-16);
  if (!/^[0-9A-Fa-f]{16}$/.test(hex))
    throw new ProtocolError(`offset message id ${offsetMsgId} carries no commit-log offset`);
  const value = BigInt(`0x${hex}`);
  if (value > BigInt(Number.MAX_SAFE_INTEGER))
    throw new ProtocolError(`commit-log offset of ${offsetMsgId} is beyond 2^53`);
  return Number(value);
}

/** What a check-back said about one half message, for the END_TRANSACTION answering it. */
export interface TransactionCheck {
  readonly topic: string;
  readonly tranStateTableOffset: string;
  readonly commitLogOffset: string;
  readonly transactionId: string | undefined;
  readonly brokerName: string | undefined;
  readonly producerGroup: string;
  readonly record: MessageRecord;
}

/**
 * END_TRANSACTION (37), oneway, as DefaultMQProducerImpl.endTransaction sends it after the local transaction:
 * tranStateTableOffset is the half message's queue offset, commitLogOffset comes from its offset message id, msgId
 * is its UNIQ_KEY; the broker name travels as `bname`.
 */
export function endTransactionRequest(request: EndTransactionRequest): OutgoingRequest {
  const { result } = request;
  return {
    code: RequestCode.END_TRANSACTION,
    extFields: {
      topic: result.messageQueue.topic,
      producerGroup: request.producerGroup,
      tranStateTableOffset: formatLong(result.queueOffset, 'tranStateTableOffset'),
      commitLogOffset: formatLong(commitLogOffsetOf(result.offsetMsgId), 'commitLogOffset'),
      commitOrRollback: COMMIT_OR_ROLLBACK[request.state],
      fromTransactionCheck: false,
      msgId: result.msgId,
      transactionId: request.transactionId,
      bname: result.messageQueue.brokerName,
    },
  };
}

/**
 * CHECK_TRANSACTION_STATE (39, oneway, broker → producer): header CheckTransactionStateRequestHeader; the body is
 * the half message with its real topic and queue restored; the producer group is its PGROUP property.
 */
export function parseCheckTransactionState(request: RemotingCommand): TransactionCheck {
  const f = request.extFields;
  const [record] = decodeMessageRecords(request.body, { brokerName: f.bname ?? '' });
  if (!record) throw new ProtocolError('CHECK_TRANSACTION_STATE has no message in its body');
  const producerGroup = record.properties.PGROUP;
  if (!producerGroup) throw new ProtocolError('CHECK_TRANSACTION_STATE: the half message has no PGROUP property');
  if (f.tranStateTableOffset === undefined || f.commitLogOffset === undefined)
    throw new ProtocolError('CHECK_TRANSACTION_STATE lacks tranStateTableOffset or commitLogOffset');
  return {
    topic: f.topic ?? '',
    tranStateTableOffset: f.tranStateTableOffset,
    commitLogOffset: f.commitLogOffset,
    transactionId: f.transactionId,
    brokerName: f.bname,
    producerGroup,
    record,
  };
}

/** The END_TRANSACTION answering a check (fromTransactionCheck=true), header fields taken from the check. */
export function checkAnswerRequest(check: TransactionCheck, state: keyof typeof COMMIT_OR_ROLLBACK): OutgoingRequest {
  return {
    code: RequestCode.END_TRANSACTION,
    extFields: {
      topic: check.topic,
      producerGroup: check.producerGroup,
      tranStateTableOffset: check.tranStateTableOffset,
      commitLogOffset: check.commitLogOffset,
      commitOrRollback: COMMIT_OR_ROLLBACK[state],
      fromTransactionCheck: true,
      msgId: check.record.properties.UNIQ_KEY ?? check.record.offsetMsgId,
      transactionId: check.transactionId,
      bname: check.brokerName,
    },
  };
}
