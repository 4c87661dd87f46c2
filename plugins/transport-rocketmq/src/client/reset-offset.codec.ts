import type { MessageQueue } from '@mqkit/core';
import { formatLong } from '../protocol/checked-long';
import { RequestCode } from '../protocol/remoting-codes';
import type { RemotingCommand } from '../protocol/remoting-command';
import type { OutgoingRequest } from '../remoting/remoting-request';
import { parseOffsetTable } from './broker-callbacks.codec';
import { expectCode } from './broker-response';

/**
 * INVOKE_BROKER_TO_RESET_OFFSET (222 → each master of the topic), as `mqadmin resetOffsetByTime` sends it: every
 * queue (no queueId), to the first message stored at or after `timestamp`, forced (moving back or forward).
 * A 5.x broker with its default useServerSideResetOffset=true records the offsets and answers the next pull of
 * each queue with PULL_OFFSET_MOVED; with it off, the broker pushes RESET_CONSUMER_CLIENT_OFFSET to each member.
 */
export function resetOffsetRequest(group: string, topic: string, timestamp: number): OutgoingRequest {
  return {
    code: RequestCode.INVOKE_BROKER_TO_RESET_OFFSET,
    extFields: { topic, group, timestamp: formatLong(timestamp, 'timestamp'), isForce: true },
  };
}

/** The offsets the broker set (its ResetOffsetBody); an error code is a BrokerError. */
export function parseResetOffsetResponse(
  response: RemotingCommand,
  group: string,
  topic: string,
  brokerName: string,
): Array<{ mq: MessageQueue; offset: number }> {
  expectCode(response, `reset offsets of group ${group} on topic ${topic}`, { brokerName });
  return parseOffsetTable(response.body);
}
