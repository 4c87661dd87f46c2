import type { DependencyContainer, InjectionToken } from 'tsyringe';
import { readConsumerMetadata } from '../decorators/consumer.metadata';
import { ConfigurationError } from '../errors/configuration.error';
import type { ConsumerDeclaration } from './consumer-definition';

export type Constructor<T = object> = new (...args: never[]) => T;

/**
 * Turns `@Consumer` classes into declarations whose handlers resolve from the app's container: one instance per
 * class per app, built with constructor injection on first use.
 */
export function exploreConsumers(
  classes: readonly Constructor[],
  container: DependencyContainer,
): ConsumerDeclaration[] {
  const declarations: ConsumerDeclaration[] = [];
  for (const cls of classes) {
    const entries = readConsumerMetadata(cls);
    if (entries.length === 0) {
      throw new ConfigurationError({
        source: cls.name || 'anonymous class',
        option: 'consumers',
        value: cls,
        allowed: 'classes with @Consumer on the class or on methods',
      });
    }
    let instance: object | undefined;
    const resolve = (): object => {
      if (instance) return instance;
      try {
        instance = container.resolve(cls as unknown as InjectionToken<object>);
      } catch (error) {
        throw new ConfigurationError(
          {
            source: cls.name,
            option: 'consumers',
            value: cls,
            allowed:
              'a class the app container can build: add @injectable() when @Consumer is only on methods and the constructor takes dependencies, and register what it needs',
          },
          error,
        );
      }
      return instance;
    };
    for (const entry of entries) {
      declarations.push({ options: entry.options, handler: { className: cls.name, method: entry.method, resolve } });
    }
  }
  return declarations;
}
