import type { Attributes, TextMapPropagator, Tracer } from '@opentelemetry/api';
import {
  ATTR_MESSAGING_CLIENT_ID,
  ATTR_MESSAGING_ROCKETMQ_NAMESPACE,
  ATTR_MESSAGING_SYSTEM,
  MESSAGING_SYSTEM_ROCKETMQ,
} from './semconv';

/** What both hooks of one client share: where spans go, how context travels, who the client is. */
export interface Tracing {
  readonly tracer: Tracer;
  readonly propagator: TextMapPropagator;
  /** `<ip>@<instanceName>`: RocketMQ's client id, which semconv asks for as `messaging.client.id`. */
  readonly clientId: string;
}

/**
 * The attributes every span of a client has. `messaging.rocketmq.namespace` is Required by semconv, so a client
 * without a namespace reports the empty string, as RocketMQ's own clients do (their default namespace is "").
 */
export function clientAttributes(tracing: Tracing, namespace: string | undefined): Attributes {
  return {
    [ATTR_MESSAGING_SYSTEM]: MESSAGING_SYSTEM_ROCKETMQ,
    [ATTR_MESSAGING_ROCKETMQ_NAMESPACE]: namespace ?? '',
    [ATTR_MESSAGING_CLIENT_ID]: tracing.clientId,
  };
}
