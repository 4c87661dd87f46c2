import type { SendHook, SendInvocation, SendKind, SendResult } from '@mqkit/core';
import { SpanKind, context, trace, type Link, type TextMapSetter } from '@opentelemetry/api';
import { extractCreationContext } from './creation-context';
import { outgoingAttributes } from './outgoing-attributes';
import {
  ATTR_MESSAGING_DESTINATION_NAME,
  ATTR_MESSAGING_MESSAGE_ID,
  ATTR_MESSAGING_OPERATION_NAME,
  ATTR_MESSAGING_OPERATION_TYPE,
} from './semconv';
import { runInSpan } from './span-outcome';
import { clientAttributes, type Tracing } from './tracing';

/**
 * `messaging.operation.name` per producer call, named after RocketMQ's producer methods (send, sendOneway,
 * request); a batch and a transactional send are sends (their count and message type tell them apart).
 */
export const SEND_OPERATION_NAMES: Readonly<Record<SendKind, string>> = {
  send: 'send',
  batch: 'send',
  transaction: 'send',
  oneway: 'send_oneway',
  request: 'request',
};

/** Writes what the propagator injects into message `carrier` (its index) as user properties, before encoding. */
function propertySetter(call: SendInvocation): TextMapSetter<number> {
  return { set: (index, name, value) => call.setProperty(index, name, value) };
}

/**
 * One PRODUCER span per producer call, named `<operation> <topic>`, whose context is injected into every message
 * of the call as its creation context (no "Create" spans: semconv lets the send span's context be the creation
 * context, and a consumer's process span then has the send span as its parent). A message that already carries a
 * creation context (the application injected one) keeps it, and the send span links to it.
 */
export class SendSpanHook implements SendHook {
  readonly name = 'opentelemetry';

  constructor(private readonly tracing: Tracing) {}

  async around(call: SendInvocation, proceed: () => Promise<readonly SendResult[]>): Promise<readonly SendResult[]> {
    const { tracer, propagator } = this.tracing;
    const operation = SEND_OPERATION_NAMES[call.kind];
    const own = call.messages.map((m) => extractCreationContext(propagator, m.properties).span);
    const links: Link[] = own.flatMap((span) => (span ? [{ context: span }] : []));
    const parent = context.active();
    const span = tracer.startSpan(
      `${operation} ${call.topic}`,
      {
        kind: SpanKind.PRODUCER,
        links,
        attributes: {
          ...clientAttributes(this.tracing, call.namespace),
          [ATTR_MESSAGING_DESTINATION_NAME]: call.topic,
          [ATTR_MESSAGING_OPERATION_NAME]: operation,
          [ATTR_MESSAGING_OPERATION_TYPE]: 'send',
          ...outgoingAttributes(call),
        },
      },
      parent,
    );
    const active = trace.setSpan(parent, span);
    const setter = propertySetter(call);
    call.messages.forEach((_, index) => {
      if (!own[index]) propagator.inject(active, index, setter);
    });
    return runInSpan(span, parent, proceed, (results) => {
      // A sync send of one message tells its id (UNIQ_KEY, what consumers see as msgId); oneway and request don't.
      if (call.kind !== 'batch' && results.length === 1)
        span.setAttribute(ATTR_MESSAGING_MESSAGE_ID, results[0]!.msgId);
    });
  }
}
