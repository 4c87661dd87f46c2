import { ConsumeStatus, MessageConst } from '../model/constants';
import type { Message } from '../model/message';
import { withoutNamespace } from '../model/namespace';
import { UniqKeyGenerator } from '../producer/uniq-key';
import type { ConsumeHook, ConsumeInvocation } from '../spi/consume-hook';
import {
  ConsumeReturnType,
  DEFAULT_TRACE_REGION_ID,
  traceBean,
  type TraceBean,
  type TraceContext,
} from './trace-context';
import type { TraceDispatcher } from './trace-dispatcher';

/**
 * ConsumeMessageTraceHookImpl as a consume hook: a SubBefore context when a handler call starts and a SubAfter
 * context, with the same request id, when it ends, over the call's messages (a message the broker stored with
 * `TRACE_ON=false` is left out; a call with none left is not traced). Only the dispatcher's queue is touched: the
 * handler waits for nothing of the trace.
 */
export function consumeTraceHook(dispatcher: Pick<TraceDispatcher, 'append'>): ConsumeHook {
  const requestIds = new UniqKeyGenerator();
  return {
    name: 'message-trace',
    async around(invocation, proceed) {
      const beans = traceBeansOf(invocation.messages);
      if (beans.length === 0) return proceed();
      const groupName = withoutNamespace(invocation.namespace, invocation.group);
      const before: TraceContext = {
        traceType: 'SubBefore',
        timeStamp: Date.now(),
        // Java takes the region of the batch's last traced message; a broker always stores one (MSG_REGION).
        regionId: regionOf(invocation.messages),
        groupName,
        costTime: 0,
        success: true,
        requestId: requestIds.next(),
        contextCode: 0,
        traceBeans: beans,
      };
      dispatcher.append(before);
      let outcome: { status: unknown } | undefined;
      try {
        outcome = { status: await proceed() };
        return outcome.status;
      } finally {
        dispatcher.append(subAfter(invocation, before, outcome));
      }
    },
  };
}

function traceBeansOf(messages: readonly Message[]): TraceBean[] {
  const beans: TraceBean[] = [];
  for (const m of messages) {
    if (m.properties[MessageConst.TRACE_ON] === 'false') continue;
    beans.push(
      traceBean({
        topic: m.topic,
        msgId: m.msgId,
        tags: m.tags ?? null,
        keys: m.properties[MessageConst.KEYS] ?? null,
        retryTimes: m.reconsumeTimes,
        bodyLength: m.record.storeSize,
      }),
    );
  }
  return beans;
}

function regionOf(messages: readonly Message[]): string {
  let region: string | undefined;
  for (const m of messages)
    if (m.properties[MessageConst.TRACE_ON] !== 'false') region = m.properties[MessageConst.MSG_REGION] ?? region;
  return region || DEFAULT_TRACE_REGION_ID;
}

/**
 * The SubAfter of a call (ConsumeMessageConcurrentlyService / OrderlyService around the listener): success is a
 * handler that returned something other than RECONSUME_LATER or SUSPEND_CURRENT_QUEUE_A_MOMENT; the context code is
 * ConsumeReturnType's ordinal, TIME_OUT when the call was given up (consumeTimeout, or a stop that stopped waiting);
 * the cost is the call's time divided by its messages, as Java divides it.
 */
function subAfter(
  invocation: ConsumeInvocation,
  before: TraceContext,
  outcome: { status: unknown } | undefined,
): TraceContext {
  const later =
    outcome !== undefined &&
    (outcome.status === ConsumeStatus.RECONSUME_LATER ||
      outcome.status === ConsumeStatus.SUSPEND_CURRENT_QUEUE_A_MOMENT);
  const givenUp = invocation.context.signal.aborted;
  const contextCode = givenUp
    ? ConsumeReturnType.TIME_OUT
    : outcome === undefined
      ? ConsumeReturnType.EXCEPTION
      : later
        ? ConsumeReturnType.FAILED
        : ConsumeReturnType.SUCCESS;
  const now = Date.now();
  return {
    ...before,
    traceType: 'SubAfter',
    timeStamp: now,
    costTime: Math.trunc((now - before.timeStamp) / invocation.messages.length),
    success: outcome !== undefined && !later && !givenUp,
    contextCode,
    accessChannel: 'LOCAL',
  };
}
