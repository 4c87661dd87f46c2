import type { ConsumeContext, Message } from '@mqkit/core';
import type { ParamData } from '@nestjs/common';
import type { ParamsFactory } from '@nestjs/core';
import { MqkitParamtype } from './mqkit-paramtype';

/**
 * Turns the handler's call arguments `(input, ctx)`, as core passes them, into the value of one decorated
 * parameter. `input` is a Message, or Message[] for `batch: true`.
 */
export class MqkitParamsFactory implements ParamsFactory {
  exchangeKeyForValue(type: number, data: ParamData, args: [Message | Message[], ConsumeContext]): unknown {
    const [input, ctx] = args;
    switch (type) {
      case MqkitParamtype.PAYLOAD: {
        const payload = Array.isArray(input) ? input.map((m) => m.payload) : input.payload;
        if (data === undefined) return payload;
        return Array.isArray(payload) ? payload.map((p) => pick(p, data)) : pick(payload, data);
      }
      case MqkitParamtype.MESSAGE:
        return input;
      case MqkitParamtype.CONTEXT:
        return ctx;
      default:
        return undefined;
    }
  }
}

function pick(payload: unknown, property: ParamData): unknown {
  if (payload === null || typeof payload !== 'object' || (typeof property !== 'string' && typeof property !== 'number'))
    return undefined;
  return (payload as Record<string | number, unknown>)[property];
}
