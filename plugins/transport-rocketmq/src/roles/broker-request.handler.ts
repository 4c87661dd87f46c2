import type { BrokerCallbacks } from '@mqkit/core';
import {
  consumeMessageDirectlyResultBody,
  parseConsumeMessageDirectlyRequest,
  parseConsumerRunningInfoRequest,
  parseNotifyConsumerIdsChanged,
  parseResetOffsetRequest,
} from '../client/broker-callbacks.codec';
import { parsePushReply } from '../client/reply-message.codec';
import { checkAnswerRequest, parseCheckTransactionState } from '../client/transaction.codec';
import { consumerRunningInfoBody, isConsumerStatus } from '../client/consumer-running-info.codec';
import { RequestCode, ResponseCode } from '../protocol/remoting-codes';
import type { RemotingCommand } from '../protocol/remoting-command';
import type { RemotingReply, RemotingRequestHandler } from '../remoting/remoting-request';
import type { RocketMqSession } from '../transport/rocketmq-session';
import type { RocketMqGroupMembership } from './group-membership.role';
import type { RocketMqQueueLocks } from './queue-locks.role';

/** What the handler needs besides the session. */
export interface BrokerRequestDeps {
  readonly session: RocketMqSession;
  readonly membership: RocketMqGroupMembership;
  readonly locks: RocketMqQueueLocks;
  /** Core's callbacks, from the transport's context: a producer or admin client has none. */
  readonly callbacks: BrokerCallbacks | undefined;
}

/**
 * Answers what brokers send this client (ClientRemotingProcessor):
 * - NOTIFY_CONSUMER_IDS_CHANGED (oneway): the group's members changed → `changes$` of the membership role;
 * - RESET_CONSUMER_CLIENT_OFFSET (oneway): new offsets for a group → core's `resetOffsets`;
 * - GET_CONSUMER_RUNNING_INFO (sync, from admin tools through the broker): ConsumerRunningInfo JSON built from
 *   core's status of the group, or SYSTEM_ERROR when this client runs no such group;
 * - CONSUME_MESSAGE_DIRECTLY (sync, the dashboard's resend): the group's handler once on the message, answered
 *   with ConsumeMessageDirectlyResult, or SYSTEM_ERROR when this client runs no such group.
 * - CHECK_TRANSACTION_STATE (oneway): a half message of a transactional producer group: its listener's outcome goes
 *   back as END_TRANSACTION (fromTransactionCheck) to that broker.
 * - PUSH_REPLY_MESSAGE_TO_CLIENT (sync): a reply to a request of this client → core's `receiveReply`.
 * Anything else is answered REQUEST_CODE_NOT_SUPPORTED.
 */
export function brokerRequestHandler(deps: BrokerRequestDeps): RemotingRequestHandler {
  return async (
    request: RemotingCommand,
    context: { readonly address: string },
  ): Promise<RemotingReply | undefined> => {
    switch (request.code) {
      case RequestCode.NOTIFY_CONSUMER_IDS_CHANGED:
        deps.membership.notifyChanged(parseNotifyConsumerIdsChanged(request).group);
        return { code: ResponseCode.SUCCESS };
      case RequestCode.RESET_CONSUMER_CLIENT_OFFSET: {
        const reset = parseResetOffsetRequest(request);
        await deps.callbacks?.resetOffsets(reset.group, reset.offsets);
        return { code: ResponseCode.SUCCESS };
      }
      case RequestCode.GET_CONSUMER_RUNNING_INFO:
        return runningInfo(deps, request);
      case RequestCode.CHECK_TRANSACTION_STATE: {
        // Oneway: the answer is an END_TRANSACTION to the broker that asked, or nothing when this client has no
        // transactional producer of the group (another of its members will be asked at the next check).
        const check = parseCheckTransactionState(request);
        const state = await deps.callbacks?.checkTransaction?.(check.producerGroup, check.record);
        if (state) await deps.session.oneway(context.address, checkAnswerRequest(check, state));
        return undefined;
      }
      case RequestCode.PUSH_REPLY_MESSAGE_TO_CLIENT:
        // A late reply (its request timed out) is answered SUCCESS too, as Java does: the broker has nothing to retry.
        deps.callbacks?.receiveReply?.(
          parsePushReply(request, deps.session.routes.brokerNameOf(context.address) ?? ''),
        );
        return { code: ResponseCode.SUCCESS };
      case RequestCode.CONSUME_MESSAGE_DIRECTLY: {
        const { group, brokerName, record } = parseConsumeMessageDirectlyRequest(request);
        const result = await deps.callbacks?.consumeDirectly(group, record, brokerName);
        if (!result)
          return {
            code: ResponseCode.SYSTEM_ERROR,
            remark: `The Consumer Group <${group}> not exist in this consumer`,
          };
        return { code: ResponseCode.SUCCESS, body: consumeMessageDirectlyResultBody(result) };
      }
      default:
        return undefined;
    }
  };
}

function runningInfo(deps: BrokerRequestDeps, request: RemotingCommand): RemotingReply {
  const { group } = parseConsumerRunningInfoRequest(request);
  const status = deps.callbacks?.runningInfo(group);
  const registration = deps.membership.registration(group);
  if (!isConsumerStatus(status) && !registration) {
    // MQClientInstance.consumerRunningInfo answers SYSTEM_ERROR "The Consumer Group <g> not exist in this consumer".
    return { code: ResponseCode.SYSTEM_ERROR, remark: `The Consumer Group <${group}> not exist in this consumer` };
  }
  const body = consumerRunningInfoBody({
    registration,
    status: isConsumerStatus(status) ? status : undefined,
    nameServers: deps.session.nameServers.addresses,
    startTimestamp: deps.session.startedAt,
    clientVersion: 'V5_3_3',
    lockedAt: (mq) => deps.locks.lockedSince(group, mq),
  });
  return { code: ResponseCode.SUCCESS, body };
}
