export { openTelemetry, type OpenTelemetryOptions } from './opentelemetry.plugin';
export { SEND_OPERATION_NAMES } from './send-span.hook';
export * as SemanticAttributes from './semconv';
