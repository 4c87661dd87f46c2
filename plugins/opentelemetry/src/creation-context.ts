import {
  ROOT_CONTEXT,
  defaultTextMapGetter,
  trace,
  type Context,
  type SpanContext,
  type TextMapPropagator,
} from '@opentelemetry/api';

/**
 * A message's creation context (semconv messaging-spans.md, Context propagation), read from its user properties with
 * the client's propagator: the full context (baggage included) and its span context when one is there and valid.
 * Read from the root, never from the ambient context: a handler call runs wherever the pull loop was started.
 */
export function extractCreationContext(
  propagator: TextMapPropagator,
  properties: Readonly<Record<string, string>> | undefined,
): { context: Context; span: SpanContext | undefined } {
  const context = properties ? propagator.extract(ROOT_CONTEXT, properties, defaultTextMapGetter) : ROOT_CONTEXT;
  const span = trace.getSpanContext(context);
  return { context, span: span && trace.isSpanContextValid(span) ? span : undefined };
}
