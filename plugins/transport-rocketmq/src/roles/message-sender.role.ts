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
    const response = await this.session.request(address, sendMessageRequest(mq, record, options.producerGroup), {
      timeoutMs: options.timeoutMs,
    });
    return parseSendResponse(response, mq, [record]);
  }

  async sendOneway(mq: MessageQueue, record: OutgoingRecord, options: { producerGroup: string }): Promise<void> {
    const address = await brokerAddressFor(this.session.routes, mq, true);
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

  /** END_TRANSACTION, oneway, to the master of the broker that stored the half message (as Java's endTransaction). */
  async endTransaction(request: EndTransactionRequest): Promise<void> {
    const address = await brokerAddressFor(this.session.routes, request.result.messageQueue, true);
    await this.session.oneway(address, endTransactionRequest(request));
  }
}
