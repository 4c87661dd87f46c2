import { Tokens, type MqkitPlugin } from '@mqkit/core';
import { propagation, trace, type TextMapPropagator, type TracerProvider } from '@opentelemetry/api';
import { ProcessSpanHook } from './process-span.hook';
import { SendSpanHook } from './send-span.hook';
import type { Tracing } from './tracing';

// The package's own name and version are the instrumentation scope of every span.
const { name: SCOPE_NAME, version: SCOPE_VERSION } = require('../package.json') as { name: string; version: string };

export interface OpenTelemetryOptions {
  /**
   * Where spans go. Default: the globally registered provider (`trace.getTracerProvider()`, what the Node SDK
   * registers); it is a proxy, so a provider registered after the app started still receives the spans.
   */
  readonly tracerProvider?: TracerProvider;
  /**
   * How the creation context travels in message user properties. Default: the globally registered propagator
   * (`propagation`), which the Node SDK sets to W3C trace context (`traceparent`, `tracestate`) and baggage. Without
   * an SDK the global one is a no-op: pass `new W3CTraceContextPropagator()` from @opentelemetry/core, or register it.
   */
  readonly propagator?: TextMapPropagator;
}

/**
 * Traces mqkit with OpenTelemetry, after the messaging semantic conventions for RocketMQ: a PRODUCER span per
 * producer call (`send <topic>`, `send_oneway <topic>`, `request <topic>`), its context carried to consumers in
 * the message's user properties, and a CONSUMER span `process <topic>` per handler call, the child of the
 * message's send span. Give it to `createConsumerApp({ plugins })` (its consumers and its own `producer`) and to
 * `createProducer({ plugins })`.
 *
 * @example
 * ```ts
 * import { NodeSDK } from '@opentelemetry/sdk-node';
 * new NodeSDK({ traceExporter }).start();
 * const app = await createConsumerApp({ transport, consumers: [OrderConsumer], plugins: [openTelemetry()] });
 * ```
 */
export function openTelemetry(options: OpenTelemetryOptions = {}): MqkitPlugin {
  return {
    name: 'opentelemetry',
    register(container, { clientId }) {
      const tracing: Tracing = {
        tracer: (options.tracerProvider ?? trace.getTracerProvider()).getTracer(SCOPE_NAME, SCOPE_VERSION),
        propagator: options.propagator ?? propagation,
        clientId,
      };
      container.register(Tokens.SendHook, { useValue: new SendSpanHook(tracing) });
      container.register(Tokens.ConsumeHook, { useValue: new ProcessSpanHook(tracing) });
    },
  };
}
