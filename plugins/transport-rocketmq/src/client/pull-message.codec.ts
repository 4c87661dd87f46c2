import {
  MessageConst,
  PullStatus,
  type MessageQueue,
  type MessageRecord,
  type PullRequest,
  type PullResult,
} from '@mqkit/core';
import { formatLong } from '../protocol/checked-long';
import { decodeMessageRecords } from '../protocol/message-record.decoder';
import { PullSysFlag, RequestCode, ResponseCode } from '../protocol/remoting-codes';
import type { RemotingCommand } from '../protocol/remoting-command';
import type { OutgoingRequest } from '../remoting/remoting-request';
import { expectCode, longField, optionalLongField } from './broker-response';

/** A record while its decoder completes it. */
type Writable<T> = { -readonly [K in keyof T]: T[K] };

/**
 * PULL_MESSAGE (11), as the Java push consumer sends it (PullAPIWrapper.pullKernelImpl) with
 * postSubscriptionWhenPull: SUSPEND when the broker may hold the request, SUBSCRIPTION always (so the broker
 * filters by this header and never answers SUBSCRIPTION_NOT_EXIST/NOT_LATEST), COMMIT_OFFSET when an offset
 * greater than 0 is piggy-backed. commitOffset is always present (0 when nothing is committed).
 */
export function pullMessageRequest(request: PullRequest): OutgoingRequest {
  const commit = request.commitOffset !== undefined && request.commitOffset > 0 ? request.commitOffset : undefined;
  let sysFlag = PullSysFlag.SUBSCRIPTION;
  if (request.suspendMs > 0) sysFlag |= PullSysFlag.SUSPEND;
  if (commit !== undefined) sysFlag |= PullSysFlag.COMMIT_OFFSET;
  return {
    code: RequestCode.PULL_MESSAGE,
    extFields: {
      consumerGroup: request.group,
      topic: request.mq.topic,
      queueId: request.mq.queueId,
      queueOffset: formatLong(request.offset, 'queueOffset'),
      maxMsgNums: request.maxMsgs,
      sysFlag,
      commitOffset: formatLong(commit ?? 0, 'commitOffset'),
      suspendTimeoutMillis: Math.max(0, request.suspendMs),
      subscription: request.subscription.expression,
      subVersion: formatLong(request.subscription.subVersion, 'subVersion'),
      expressionType: request.subscription.expressionType,
      maxMsgBytes: request.maxBytes,
      // For rocketmq-proxy, which serves every broker at one address (see consumer-offset.codec.ts).
      bname: request.mq.brokerName,
    },
  };
}

/** RocketMQ's response code → PullStatus mapping (PullAPIWrapper / MQClientAPIImpl.processPullResponse). */
const STATUS_BY_CODE: ReadonlyMap<number, PullStatus> = new Map<number, PullStatus>([
  [ResponseCode.SUCCESS, PullStatus.FOUND],
  [ResponseCode.PULL_NOT_FOUND, PullStatus.NO_NEW_MSG],
  [ResponseCode.PULL_RETRY_IMMEDIATELY, PullStatus.NO_MATCHED_MSG],
  [ResponseCode.PULL_OFFSET_MOVED, PullStatus.OFFSET_ILLEGAL],
]);

/** A pull answer, plus which broker of the group to pull from next (0 = the master). */
export interface PullOutcome {
  readonly result: PullResult;
  readonly suggestWhichBrokerId: number;
}

/**
 * Reads a pull response. Codes 0/19/20/21 map to FOUND / NO_NEW_MSG / NO_MATCHED_MSG / OFFSET_ILLEGAL; any other
 * is a BrokerError (retried by the pull loop after its back-off). A FOUND body is decoded into records of `mq`,
 * each given MIN_OFFSET and MAX_OFFSET properties and, for static topics, offsetDelta added, as
 * PullAPIWrapper.processPullResult does. The exact tag re-check after the broker's hash filter is left to the
 * caller (core's pull loop applies it), so no record is dropped twice.
 */
export function parsePullResponse(response: RemotingCommand, mq: MessageQueue): PullOutcome {
  expectCode(response, `pull of ${mq.topic}/${mq.brokerName}/${mq.queueId}`, {
    accepted: [...STATUS_BY_CODE.keys()],
    brokerName: mq.brokerName,
  });
  const status = STATUS_BY_CODE.get(response.code)!;
  const nextBeginOffset = longField(response, 'nextBeginOffset');
  const minOffset = longField(response, 'minOffset');
  const maxOffset = longField(response, 'maxOffset');
  const suggestWhichBrokerId = optionalLongField(response, 'suggestWhichBrokerId') ?? 0;
  let messages: MessageRecord[] = [];
  if (status === PullStatus.FOUND) {
    const offsetDelta = optionalLongField(response, 'offsetDelta') ?? 0;
    const min = String(minOffset);
    const max = String(maxOffset);
    messages = decodeMessageRecords(response.body, { brokerName: mq.brokerName });
    // The decoded records and their properties are fresh objects of this response's own: they are completed in
    // place. A copy of each record and of its properties cost two allocations per message on the hottest path of
    // a real cluster (`npm run bench -- rocketmq`, profile of the raw client).
    for (const record of messages as Writable<MessageRecord>[]) {
      const properties = record.properties as Record<string, string>;
      properties[MessageConst.MIN_OFFSET] = min;
      properties[MessageConst.MAX_OFFSET] = max;
      record.queueId = mq.queueId;
      if (offsetDelta !== 0) record.queueOffset += offsetDelta;
    }
  }
  return { result: { status, nextBeginOffset, minOffset, maxOffset, messages }, suggestWhichBrokerId };
}
