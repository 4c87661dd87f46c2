import type {
  EndTransactionRequest,
  MessageQueue,
  MessageSender,
  OutgoingRecord,
  ReplyRequest,
  SendResult,
} from '@mqkit/core';
import { parseReplyResponse, sendReplyRequest } from '../client/reply-message.codec';
import { parseSendResponse, sendBatchRequest, sendMessageRequest } from '../client/send-message.codec';
import { endTransactionRequest } from '../client/transaction.codec';
import type { RocketMqSession } from '../transport/rocketmq-session';
import { brokerAddressFor } from './broker-address';
import { BrokerReleaseError } from '../errors/broker-release.error';
import { BrokerReleases, releaseName, type ReleaseName } from '../transport/broker-releases';

const TIMER_PROPERTIES = ['TIMER_DELIVER_MS', 'TIMER_DELAY_MS', 'TIMER_DELAY_SEC'] as const;
const PRIORITY_PROPERTY = '_SYS_MSG_PRIORITY_';
const LITE_TOPIC_PROPERTY = '__LITE_TOPIC';

/** What a record needs of the broker's release, or undefined for a plain message. */
function releaseNeeds(record: OutgoingRecord): { feature: string; since: ReleaseName } | undefined {
  const timer = TIMER_PROPERTIES.find((p) => record.properties[p] !== undefined);
  if (timer) return { feature: `a timer message (${timer})`, since: '5.0.0' };
  if (record.properties[PRIORITY_PROPERTY] !== undefined) return { feature: 'a priority message', since: '5.4.0' };
  if (record.properties[LITE_TOPIC_PROPERTY] !== undefined) return { feature: 'a lite topic message', since: '5.5.0' };
  return undefined;
}

/**
 * The send role for core's producer: SEND_MESSAGE_V2 to the queue's master, SEND_BATCH_MESSAGE for batches,
 * oneway sends, END_TRANSACTION and replies. Codes 0/10/11/12 are results; others are BrokerErrors with RocketMQ's retry verdict. Queue
 * selection, retries and fault avoidance are core's.
 */
export class RocketMqMessageSender implements MessageSender {
  constructor(private readonly session: RocketMqSession) {}

  async send(
    mq: MessageQueue,
    record: OutgoingRecord,
    options: { producerGroup: string; timeoutMs: number },
  ): Promise<SendResult> {
    const address = await brokerAddressFor(this.session.routes, mq, true);
    await this.#checkRelease(address, mq, record);
    const response = await this.session.request(address, sendMessageRequest(mq, record, options.producerGroup), {
      timeoutMs: options.timeoutMs,
    });
    return parseSendResponse(response, mq, [record]);
  }

  async sendOneway(mq: MessageQueue, record: OutgoingRecord, options: { producerGroup: string }): Promise<void> {
    const address = await brokerAddressFor(this.session.routes, mq, true);
    await this.#checkRelease(address, mq, record);
    await this.session.oneway(address, sendMessageRequest(mq, record, options.producerGroup));
  }

  async sendBatch(
    mq: MessageQueue,
    records: readonly OutgoingRecord[],
    options: { producerGroup: string; timeoutMs: number },
  ): Promise<SendResult> {
    const address = await brokerAddressFor(this.session.routes, mq, true);
    const response = await this.session.request(address, sendBatchRequest(mq, records, options.producerGroup), {
      timeoutMs: options.timeoutMs,
    });
    return parseSendResponse(response, mq, records);
  }

  /**
   * SEND_REPLY_MESSAGE_V2 to the master of the broker that stored the request. Java's replier picks a broker of the
   * reply topic round robin, and fails ("channel ... not found") when the requester heartbeats another one; the
   * broker that stored the request is one the requester registered with before sending it.
   */
  async sendReply(request: ReplyRequest): Promise<void> {
    const address = await brokerAddressFor(
      this.session.routes,
      { topic: request.record.topic, brokerName: request.brokerName },
      true,
    );
    const response = await this.session.request(address, sendReplyRequest(request), { timeoutMs: request.timeoutMs });
    parseReplyResponse(response, request);
  }

  /**
   * Refuses a message whose feature the broker's release lacks, before it is sent: a 4.x broker stores a timer
   * message as an ordinary one and delivers it at once, a broker before 5.4 ignores a priority, and one before 5.5
   * a lite topic. The release is learnt from the broker's replies (one GET_BROKER_RUNTIME_INFO for a broker nothing
   * was asked of yet), and only for messages that need a check.
   */
  async #checkRelease(address: string, mq: MessageQueue, record: OutgoingRecord): Promise<void> {
    const needs = releaseNeeds(record);
    if (!needs) return;
    const version = await this.session.brokerVersion(address);
    if (!BrokerReleases.atLeast(version, needs.since))
      throw new BrokerReleaseError(needs.feature, needs.since, mq.brokerName, address, releaseName(version));
  }

  /** END_TRANSACTION, oneway, to the master of the broker that stored the half message (as Java's endTransaction). */
  async endTransaction(request: EndTransactionRequest): Promise<void> {
    const address = await brokerAddressFor(this.session.routes, request.result.messageQueue, true);
    await this.session.oneway(address, endTransactionRequest(request));
  }
}
