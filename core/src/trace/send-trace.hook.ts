import { MessageConst } from '../model/constants';
import { storeHostOf } from '../model/offset-msg-id';
import type { OutgoingMessage } from '../model/outgoing-message';
import type { EndTransactionInvocation, SendHook, SendInvocation } from '../spi/send-hook';
import type { SendResult } from '../spi/transport.roles';
import { DEFAULT_TRACE_REGION_ID, MessageType, traceBean, type TraceContext } from './trace-context';
import type { TraceDispatcher } from './trace-dispatcher';

export interface SendTraceHookDeps {
  readonly dispatcher: Pick<TraceDispatcher, 'append'>;
  readonly traceTopic: string;
  /** The bytes of a message's body once encoded (the producer's codec for a payload). */
  readonly bodyLength: (message: OutgoingMessage) => number;
}

/**
 * SendMessageTraceHookImpl and EndTransactionTraceHookImpl as one send hook: a Pub record per message the broker
 * stored (a batch's messages one each, so that each is found by its own id), and an EndTransaction record per
 * transaction outcome. Oneway sends and requests have no result and are not traced; nor is a send to the trace
 * topic itself. The records only go into the dispatcher's queue: a send waits for nothing of the trace.
 */
export function sendTraceHook(deps: SendTraceHookDeps): SendHook {
  return {
    name: 'message-trace',
    async around(invocation, proceed) {
      if (invocation.kind === 'oneway' || invocation.kind === 'request' || invocation.topic.startsWith(deps.traceTopic))
        return proceed();
      const started = Date.now();
      const results = await proceed();
      const costTime = Date.now() - started;
      results.forEach((result, i) => {
        const message = invocation.messages[i];
        if (message) deps.dispatcher.append(pubContext(deps, invocation, message, result, started, costTime));
      });
      return results;
    },
    endTransaction(invocation) {
      if (!invocation.message.topic.startsWith(deps.traceTopic))
        deps.dispatcher.append(endTransactionContext(invocation));
    },
  };
}

function pubContext(
  deps: SendTraceHookDeps,
  call: SendInvocation,
  message: OutgoingMessage,
  result: SendResult,
  started: number,
  costTime: number,
): TraceContext {
  // DefaultMQProducerImpl.sendKernelImpl's message type: half messages first, then a delay level.
  const msgType =
    call.kind === 'transaction'
      ? MessageType.Trans_Msg_Half
      : message.delayTimeLevel && message.delayTimeLevel > 0
        ? MessageType.Delay_Msg
        : MessageType.Normal_Msg;
  const keys = typeof message.keys === 'string' ? [message.keys] : (message.keys ?? []);
  return {
    traceType: 'Pub',
    timeStamp: started,
    // Java takes the region from the send response's MSG_REGION (the broker's regionId), DefaultRegion when absent;
    // transports do not surface it, and brokers run with the default.
    regionId: DEFAULT_TRACE_REGION_ID,
    groupName: call.group,
    costTime,
    success: result.status === 'SEND_OK',
    requestId: '',
    contextCode: 0,
    traceBeans: [
      traceBean({
        topic: message.topic,
        msgId: result.msgId,
        offsetMsgId: result.offsetMsgId,
        tags: message.tags || null,
        keys: keys.length > 0 ? keys.join(' ') : null,
        // Java writes the address it sent to: the broker's, which is also the store host in the offset id.
        storeHost: storeHostOf(result.offsetMsgId) ?? '',
        bodyLength: deps.bodyLength(message),
        msgType,
      }),
    ],
  };
}

function endTransactionContext(invocation: EndTransactionInvocation): TraceContext {
  const { message } = invocation;
  return {
    traceType: 'EndTransaction',
    timeStamp: Date.now(),
    regionId: message.properties[MessageConst.MSG_REGION] || DEFAULT_TRACE_REGION_ID,
    groupName: invocation.group,
    costTime: 0,
    success: true,
    requestId: '',
    contextCode: 0,
    traceBeans: [
      traceBean({
        topic: message.topic,
        msgId: invocation.msgId,
        tags: message.tags ?? null,
        keys: message.keys.length > 0 ? message.keys.join(' ') : null,
        storeHost: invocation.storeHost,
        // EndTransactionTraceHookImpl writes Trans_msg_Commit whatever the outcome; the state says what it was.
        msgType: MessageType.Trans_msg_Commit,
        transactionId: invocation.transactionId ?? null,
        transactionState: invocation.state,
        fromTransactionCheck: invocation.fromTransactionCheck,
      }),
    ],
  };
}
