import type { MessageRecord, RetryChannel } from '@mqkit/core';
import { expectCode } from '../client/broker-response';
import { sendBackRequest } from '../client/send-back.codec';
import type { RocketMqSession } from '../transport/rocketmq-session';
import { brokerAddressFor } from './broker-address';

/**
 * CONSUMER_SEND_MSG_BACK to the master of the broker that stored the message: that broker looks the message up
 * by its commit log offset, then re-delivers it on `%RETRY%<group>` after the delay level, or dead-letters it on
 * `%DLQ%<group>` past maxReconsumeTimes. A failure rejects; core then retries the message locally.
 */
export class RocketMqRetryChannel implements RetryChannel {
  constructor(private readonly session: RocketMqSession) {}

  async sendBack(request: {
    group: string;
    message: MessageRecord;
    delayLevel: number;
    maxReconsumeTimes: number;
    timeoutMs: number;
  }): Promise<void> {
    const { message } = request;
    const address = await brokerAddressFor(this.session.routes, message, true);
    const response = await this.session.request(address, sendBackRequest(request), { timeoutMs: request.timeoutMs });
    expectCode(response, `send back of ${message.offsetMsgId} to ${message.brokerName}`, {
      brokerName: message.brokerName,
    });
  }
}
