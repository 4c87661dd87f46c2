import 'reflect-metadata';
import type { PipeTransform, Type } from '@nestjs/common';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import type { MqkitParamtype } from './mqkit-paramtype';

/** A pipe a parameter decorator applies: a class Nest instantiates, or an instance. */
export type ParamPipe = Type<PipeTransform> | PipeTransform;

/**
 * Records one handler parameter the way Nest's built-in parameter decorators do (`"<type>:<index>"` entries on the
 * method's class under ROUTE_ARGS_METADATA): a decorator only records metadata (docs/architecture.md#style-rules).
 */
export function paramDecorator(
  type: MqkitParamtype,
  data: string | undefined,
  pipes: readonly ParamPipe[],
): ParameterDecorator {
  return (target, key, index) => {
    if (key === undefined)
      throw new TypeError(
        `mqkit parameter decorators go on method parameters, not on constructor parameters of ${(target as abstract new (...args: never[]) => unknown).name}`,
      );
    const owner = target.constructor;
    const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, owner, key) as Record<string, unknown> | undefined) ?? {};
    Reflect.defineMetadata(
      ROUTE_ARGS_METADATA,
      { ...args, [`${type}:${index}`]: { index, data, pipes: [...pipes] } },
      owner,
      key,
    );
  };
}

/** Splits `(property?, ...pipes)` as Nest's `@Body()` / `@Payload()` do. */
export function splitDataAndPipes(
  propertyOrPipe: string | ParamPipe | undefined,
  pipes: readonly ParamPipe[],
): [string | undefined, ParamPipe[]] {
  if (propertyOrPipe === undefined) return [undefined, [...pipes]];
  if (typeof propertyOrPipe === 'string') return [propertyOrPipe, [...pipes]];
  return [undefined, [propertyOrPipe, ...pipes]];
}
