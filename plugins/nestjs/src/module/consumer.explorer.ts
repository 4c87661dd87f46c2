import {
  ConfigurationError,
  readConsumerMetadata,
  type ConfigurationIssue,
  type ConsumerDeclaration,
} from '@mqkit/core';
import { Injectable, type Type } from '@nestjs/common';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { DiscoveryService, ExternalContextCreator } from '@nestjs/core';
import { MqkitParamsFactory } from '../params/mqkit-params.factory';

/** The ExecutionContext type guards and interceptors see on `@Consumer` methods (`context.getType()`). */
export const MQKIT_CONTEXT_TYPE = 'mqkit';

type Handler = (...args: unknown[]) => unknown;

/**
 * Finds `@Consumer` declarations on the application's providers through Nest's own DiscoveryService, and turns
 * each into a declaration whose handler is the Nest-built instance's method, called through Nest's
 * ExternalContextCreator so parameter decorators, pipes, guards, interceptors and exception filters apply.
 * Runs at `onApplicationBootstrap`, when every provider exists.
 */
@Injectable()
export class ConsumerExplorer {
  private readonly paramsFactory = new MqkitParamsFactory();

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly contextCreator: ExternalContextCreator,
  ) {}

  explore(): ConsumerDeclaration[] {
    const issues: ConfigurationIssue[] = [];
    const declarations: ConsumerDeclaration[] = [];
    const seen = new Set<object>();
    for (const wrapper of this.discovery.getProviders()) {
      if (wrapper.isAlias) continue; // `useExisting`: the same instance is found under its own token
      const cls = classOf(wrapper.metatype, wrapper.isNotMetatype, wrapper.instance);
      if (!cls) continue;
      const entries = readConsumerMetadata(cls);
      if (entries.length === 0) continue;
      const name = cls.name || String(wrapper.token);
      // A consumer is one long-lived instance per app; request and transient scopes have no instance to call
      // outside a request, and Nest would build one per message behind the user's back.
      if (wrapper.isTransient || !wrapper.isDependencyTreeStatic()) {
        issues.push({
          source: name,
          option: 'scope',
          value: wrapper.isTransient ? 'TRANSIENT' : 'REQUEST',
          allowed:
            'the default (singleton) scope for a provider with @Consumer methods, with no request-scoped dependency: consumers run outside any request',
        });
        continue;
      }
      const instance = wrapper.instance as Record<string | symbol, unknown> | null;
      if (!instance || seen.has(instance)) continue;
      seen.add(instance);
      for (const entry of entries) {
        const method = entry.method;
        if (typeof method === 'symbol' || typeof instance[method] !== 'function') {
          issues.push({
            source: name,
            option: 'method',
            value: String(method),
            allowed: 'a method with a string name on the provider (class-level @Consumer calls handle())',
          });
          continue;
        }
        const call = this.contextCreator.create(
          instance,
          instance[method] as Handler,
          method,
          ROUTE_ARGS_METADATA,
          this.paramsFactory,
          undefined,
          undefined,
          { guards: true, interceptors: true, filters: true },
          MQKIT_CONTEXT_TYPE,
        );
        const handler = { [method]: call };
        declarations.push({ options: entry.options, handler: { className: name, method, resolve: () => handler } });
      }
    }
    if (issues.length > 0) throw new ConfigurationError(issues);
    return declarations;
  }
}

// A class provider's metatype is its class (factory and value providers are the ones marked isNotMetatype), and an
// instance's constructor is its class.
function classOf(metatype: unknown, isNotMetatype: boolean, instance: unknown): Type | undefined {
  if (!isNotMetatype && typeof metatype === 'function') return metatype as Type;
  if (instance !== null && typeof instance === 'object') return instance.constructor as Type;
  return undefined;
}
