import { ConsumeStatus, withoutNamespace, type ConsumeHook, type ConsumeInvocation } from '@mqkit/core';
import { ROOT_CONTEXT, SpanKind, type Attributes, type Link } from '@opentelemetry/api';
import { extractCreationContext } from './creation-context';
import { deliveredMessageAttributes } from './message-attributes';
import {
  ATTR_MESSAGING_BATCH_MESSAGE_COUNT,
  ATTR_MESSAGING_CONSUMER_GROUP_NAME,
  ATTR_MESSAGING_DESTINATION_NAME,
  ATTR_MESSAGING_OPERATION_NAME,
  ATTR_MESSAGING_OPERATION_TYPE,
  ATTR_MESSAGING_ROCKETMQ_CONSUMPTION_MODEL,
} from './semconv';
import { recordRefusal, runInSpan } from './span-outcome';
import { clientAttributes, type Tracing } from './tracing';

/** What a handler may answer instead of throwing to have its messages retried. */
const REFUSALS: ReadonlySet<unknown> = new Set([
  ConsumeStatus.RECONSUME_LATER,
  ConsumeStatus.SUSPEND_CURRENT_QUEUE_A_MOMENT,
]);

/**
 * One CONSUMER span `process <topic>` per handler call, the handler running in its context (its own spans and
 * sends become children). It links to the creation context of every message of the call (semconv's default
 * correlation). A call of one message also takes that message's creation context as its parent, so a trace runs
 * from the send to the handler (semconv allows this for single messages only); a call of several messages (a
 * `batch: true` handler) is a root span with one link per message, since a span has one parent.
 */
export class ProcessSpanHook implements ConsumeHook {
  readonly name = 'opentelemetry';

  constructor(private readonly tracing: Tracing) {}

  async around(call: ConsumeInvocation, proceed: () => Promise<unknown>): Promise<unknown> {
    const { tracer, propagator } = this.tracing;
    const { messages } = call;
    const first = messages[0];
    const created = messages.map((m) => extractCreationContext(propagator, m.properties));
    const links: Link[] = created.flatMap((c, i) =>
      c.span ? [{ context: c.span, attributes: deliveredMessageAttributes(messages[i]!) }] : [],
    );
    const single = messages.length === 1;
    const parent = single ? created[0]!.context : ROOT_CONTEXT;
    const topic = first?.topic ?? call.mq.topic;
    const attributes: Attributes = {
      ...clientAttributes(this.tracing, call.namespace),
      [ATTR_MESSAGING_DESTINATION_NAME]: topic,
      [ATTR_MESSAGING_OPERATION_NAME]: 'process',
      [ATTR_MESSAGING_OPERATION_TYPE]: 'process',
      [ATTR_MESSAGING_CONSUMER_GROUP_NAME]: withoutNamespace(call.namespace, call.group),
      [ATTR_MESSAGING_ROCKETMQ_CONSUMPTION_MODEL]: call.messageModel.toLowerCase(),
      ...(call.batch ? { [ATTR_MESSAGING_BATCH_MESSAGE_COUNT]: messages.length } : {}),
      ...(single ? deliveredMessageAttributes(first!) : {}),
    };
    const span = tracer.startSpan(`process ${topic}`, { kind: SpanKind.CONSUMER, links, attributes }, parent);
    return runInSpan(span, parent, proceed, (result) => {
      if (REFUSALS.has(result)) recordRefusal(span, result as string);
    });
  }
}
