import type { BrokerOffsets, MessageQueue } from '@mqkit/core';
import {
  maxOffsetRequest,
  minOffsetRequest,
  parseOffsetResponse,
  parseQueryConsumerOffset,
  queryConsumerOffsetRequest,
  searchOffsetRequest,
  updateConsumerOffsetRequest,
} from '../client/consumer-offset.codec';
import { expectCode } from '../client/broker-response';
import type { RocketMqSession } from '../transport/rocketmq-session';
import { brokerAddressFor } from './broker-address';
import type { CommitLedger } from './commit-ledger';

/**
 * Consumer offsets kept by the broker (RemoteBrokerOffsetStore's requests) and the queue offset lookups
 * consumeFromWhere needs. Commits and queries go to the queue's master (any member when it has none, as
 * RocketMQ's findBrokerAddressInSubscribe); "no offset" is -1. Commits of one group's topic to one broker are
 * sent one after the other (see {@link CommitLedger}).
 */
export class RocketMqBrokerOffsets implements BrokerOffsets {
  constructor(
    private readonly session: RocketMqSession,
    private readonly ledger: CommitLedger,
  ) {}

  async queryConsumerOffset(group: string, mq: MessageQueue): Promise<number> {
    const address = await brokerAddressFor(this.session.routes, mq);
    return parseQueryConsumerOffset(await this.session.request(address, queryConsumerOffsetRequest(group, mq)), mq);
  }

  commitConsumerOffset(group: string, mq: MessageQueue, offset: number): Promise<void> {
    return this.ledger.commit(group, mq, async () => {
      const address = await brokerAddressFor(this.session.routes, mq);
      const request = updateConsumerOffsetRequest(group, mq, offset);
      expectCode(
        await this.session.request(address, request),
        `commit offset ${offset} of ${mq.topic}/${mq.brokerName}/${mq.queueId}`,
        { brokerName: mq.brokerName },
      );
    });
  }

  async minOffset(mq: MessageQueue): Promise<number> {
    const address = await brokerAddressFor(this.session.routes, mq);
    return parseOffsetResponse(await this.session.request(address, minOffsetRequest(mq)), 'min offset', mq);
  }

  async maxOffset(mq: MessageQueue): Promise<number> {
    const address = await brokerAddressFor(this.session.routes, mq);
    return parseOffsetResponse(await this.session.request(address, maxOffsetRequest(mq)), 'max offset', mq);
  }

  async searchOffset(mq: MessageQueue, timestamp: number): Promise<number> {
    const address = await brokerAddressFor(this.session.routes, mq);
    return parseOffsetResponse(
      await this.session.request(address, searchOffsetRequest(mq, timestamp)),
      'search offset',
      mq,
    );
  }
}
