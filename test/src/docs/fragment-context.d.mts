import type { AllocationStrategy, ConsumerAppOptions, Message, StandaloneProducer, TransportPlugin } from '@mqkit/core';

// The app's own names that the docs' `<!-- fragment -->` blocks use without declaring: what a reader's service
// already has (its transport, its order type, its repository, its consumer classes). Only the app's names: what
// a block takes from mqkit or another library it must import, as an app does.

declare global {
  /** The order the examples send and consume. */
  interface Order {
    id: string;
    customerId: string;
    amount: number;
  }
  /** An order as a NestJS DTO (class-validator would decorate its fields). */
  class OrderDto {
    id: string;
    amount: number;
  }
  interface Invoice {
    id: string;
    lines: { sku: string; amount: number }[];
  }
  interface Total {
    invoiceId: string;
    total: number;
  }

  /** The app's transport: `memoryTransport()` or `rocketmqTransport({ nameServer })`. */
  const transport: TransportPlugin;
  /** A producer the app created with `createProducer`. */
  const producer: StandaloneProducer;
  /** The app's consumer classes. */
  const consumers: ConsumerAppOptions['consumers'];
  class OrderConsumer {
    handle(message: Message<Order>): Promise<void>;
  }
  class BillingConsumer {
    handle(message: Message<Order>): Promise<void>;
  }
  /** A Nest root module of the app. */
  class AppModule {}

  const order: Order;
  const orders: Order[];
  /** A line of text, for a one-way send. */
  const line: string;
  class OrderRepository {
    save(order: Order | OrderDto, options?: { signal?: AbortSignal }): Promise<void>;
  }
  /** The app's database, as the transaction example uses it. */
  const db: {
    has(key: string | undefined): boolean;
    insert(order: Order): Promise<void>;
  };
  const catalog: { price(sku: string): Promise<number> };
  const cache: Map<string, unknown>;
  /** Stores a batch the pull consumer read. */
  function save(messages: readonly Message[]): Promise<void>;
  /** The pricing service behind the Nest request-reply example. */
  class InvoiceTotals {
    of(invoice: Invoice): Promise<Total>;
  }
  /** A strategy of the app's own, for the allocation contract suite. */
  class ZoneAwareStrategy implements AllocationStrategy {
    readonly name: string;
    allocate: AllocationStrategy['allocate'];
  }
  /** Stand-ins for `@nestjs/config`'s module and service (not a dependency here). */
  class ConfigModule {}
  class ConfigService {
    // biome-ignore lint/suspicious/noExplicitAny: @nestjs/config's ConfigService answers any unless told a type
    get<T = any>(key: string): T | undefined;
    // biome-ignore lint/suspicious/noExplicitAny: as above
    getOrThrow<T = any>(key: string): T;
  }
}
