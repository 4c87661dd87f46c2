import { MqkitParamtype } from './mqkit-paramtype';
import { paramDecorator } from './param-decorator.factory';

/**
 * Core's `ConsumeContext` of the call: `group`, `mq`, the abort `signal`, and for batches `ackIndex`.
 *
 * @example
 * ```ts
 * @Consumer({ group: 'mail', topic: 'signups' })
 * async send(@MqPayload() signup: Signup, @MqConsumeContext() ctx: ConsumeContext) {
 *   await this.mailer.send(signup.email, { signal: ctx.signal });
 * }
 * ```
 */
export function MqConsumeContext(): ParameterDecorator {
  return paramDecorator(MqkitParamtype.CONTEXT, undefined, []);
}
