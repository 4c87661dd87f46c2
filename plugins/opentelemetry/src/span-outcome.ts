import { SpanStatusCode, context, trace, type Context, type Span } from '@opentelemetry/api';
import { ATTR_ERROR_TYPE } from './semconv';

/**
 * The error's class name (mqkit's errors name themselves after their class: BrokerError, RequestTimeoutError),
 * or `_OTHER` for a thrown non-error: semconv asks for a low-cardinality, predictable `error.type`.
 */
export function errorType(error: unknown): string {
  if (!(error instanceof Error)) return '_OTHER';
  return error.name && error.name !== 'Error' ? error.name : (error.constructor?.name ?? 'Error');
}

/** A failed operation (general/recording-errors.md): the exception event, ERROR status, `error.type`. */
export function recordFailure(span: Span, error: unknown): void {
  if (error instanceof Error) span.recordException(error);
  else span.recordException(String(error));
  span.setAttribute(ATTR_ERROR_TYPE, errorType(error));
  span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
}

/**
 * A call that failed without a throw: the handler answered RECONSUME_LATER or SUSPEND_CURRENT_QUEUE_A_MOMENT, so its
 * messages are retried. The status names the answer; there is no exception to record.
 */
export function recordRefusal(span: Span, status: string): void {
  span.setAttribute(ATTR_ERROR_TYPE, status);
  span.setStatus({ code: SpanStatusCode.ERROR, message: `the handler answered ${status}` });
}

/**
 * Runs `work` with `span` active under `parent` (so what it traces and sends is the span's child), hands its
 * result to `settled`, records a throw on the span, and ends the span either way.
 */
export async function runInSpan<R>(
  span: Span,
  parent: Context,
  work: () => Promise<R>,
  settled: (result: R) => void,
): Promise<R> {
  try {
    const result = await context.with(trace.setSpan(parent, span), work);
    settled(result);
    return result;
  } catch (error) {
    recordFailure(span, error);
    throw error;
  } finally {
    span.end();
  }
}
