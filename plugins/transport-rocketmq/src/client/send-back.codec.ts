import { MessageConst, type MessageRecord } from '@mqkit/core';
import { formatLong } from '../protocol/checked-long';
import { RequestCode } from '../protocol/remoting-codes';
import type { OutgoingRequest } from '../remoting/remoting-request';

/** What one CONSUMER_SEND_MSG_BACK carries. */
export interface SendBackInput {
  readonly group: string;
  readonly message: MessageRecord;
  /** -1: straight to the DLQ; 0: the broker picks 3 + reconsumeTimes; > 0: that level. */
  readonly delayLevel: number;
  readonly maxReconsumeTimes: number;
}

/**
 * CONSUMER_SEND_MSG_BACK (36), as MQClientAPIImpl.consumerSendMessageBack: the broker finds the message by its
 * physical `offset` (the commitLogOffset) in its own store, so this goes to the master of the broker that stored
 * it. The group field is `group`, not `consumerGroup`. `originMsgId` is the producer's id (UNIQ_KEY) when there is
 * one, `originTopic` the message's real topic (RETRY_TOPIC for a message already retried); both only feed the
 * broker's stats and hooks. `maxReconsumeTimes` is honoured for request versions ≥ 121.
 */
export function sendBackRequest(input: SendBackInput): OutgoingRequest {
  const { message } = input;
  return {
    code: RequestCode.CONSUMER_SEND_MSG_BACK,
    extFields: {
      offset: formatLong(message.commitLogOffset, 'commitLogOffset'),
      group: input.group,
      delayLevel: input.delayLevel,
      originMsgId: message.properties[MessageConst.UNIQ_KEY] ?? message.offsetMsgId,
      originTopic: message.properties[MessageConst.RETRY_TOPIC] ?? message.topic,
      unitMode: false,
      maxReconsumeTimes: input.maxReconsumeTimes,
      // The broker that stored it, for rocketmq-proxy (see consumer-offset.codec.ts).
      bname: message.brokerName,
    },
  };
}
