import {
  AllocationError,
  compareJavaStrings,
  compareMessageQueues,
  mqKey,
  type AllocationInput,
  type AllocationStrategy,
  type MessageQueue,
} from '@mqkit/core';
import { SeededRandom } from '../simulator/seeded-random';

/** Options of the allocation strategy contract. */
export interface AllocationContractOptions {
  /** Random inputs per check (default 200). */
  readonly cases?: number;
  /** Seed of the random inputs (default 7): failures are reproducible. */
  readonly seed?: number;
  /** Broker names the generated queues use (default broker-a, broker-b, broker-c). */
  readonly brokerNames?: readonly string[];
}

/** A strategy broke the contract; the message names the input. */
export class AllocationContractViolation extends Error {
  override readonly name = 'AllocationContractViolation';
}

// Ids that sort surprisingly in Java order ("cid-10" < "cid-2", upper case before lower, non-ASCII and a
// surrogate pair after ASCII) next to realistic ones.
const ID_POOL = [
  'cid-0',
  'cid-1',
  'cid-2',
  'cid-10',
  'cid-11',
  'cid-100',
  'Cid-3',
  'consumer-é',
  'consumer-e',
  '消费者-1',
  '消费者-2',
  'emoji-😀',
  '10.0.0.1@1234',
  '10.0.0.12@99',
  '10.0.0.2@1234',
  '192.168.1.7@order-service',
];

function describeInput(input: AllocationInput): string {
  const queues = input.mqAll.map((mq) => `${mq.brokerName}#${mq.queueId}`).join(' ');
  return `group ${input.consumerGroup}, cidAll [${input.cidAll.join(', ')}], mqAll [${queues}] (topic ${input.mqAll[0]?.topic ?? '-'})`;
}

/** A random sorted input as the runtime builds it: several brokers, uneven queue counts, up to more members than queues. */
export function randomAllocationInput(
  random: SeededRandom,
  brokerNames: readonly string[],
): Omit<AllocationInput, 'currentCID'> {
  const mqAll: MessageQueue[] = [];
  const brokers = 1 + random.int(brokerNames.length);
  for (let b = 0; b < brokers; b++) {
    const queues = random.int(9); // 0..8: uneven, sometimes none on a broker
    for (let queueId = 0; queueId < queues; queueId++)
      mqAll.push({ topic: 'ContractTopic', brokerName: brokerNames[b]!, queueId });
  }
  if (mqAll.length === 0) mqAll.push({ topic: 'ContractTopic', brokerName: brokerNames[0]!, queueId: 0 });
  const ids = new Set<string>();
  const members = 1 + random.int(12);
  while (ids.size < members)
    ids.add(
      random.next() < 0.6
        ? ID_POOL[random.int(ID_POOL.length)]!
        : `10.${random.int(4)}.${random.int(256)}.${random.int(256)}@${random.int(99999)}`,
    );
  return {
    consumerGroup: 'contract-group',
    mqAll: mqAll.sort(compareMessageQueues),
    cidAll: [...ids].sort(compareJavaStrings),
  };
}

/** Deep-frozen copy: a strategy that sorts or edits its input throws a TypeError instead of passing silently. */
function frozen(input: AllocationInput): AllocationInput {
  return Object.freeze({
    ...input,
    mqAll: Object.freeze(input.mqAll.map((mq) => Object.freeze({ ...mq }))),
    cidAll: Object.freeze([...input.cidAll]),
  });
}

function allocate(strategy: AllocationStrategy, input: AllocationInput): MessageQueue[] {
  let result: unknown;
  try {
    result = strategy.allocate(frozen(input));
  } catch (error) {
    throw new AllocationContractViolation(
      `${strategy.name} threw on a valid input (currentCID ${input.currentCID}; ${describeInput(input)}): ${String(error)}`,
      { cause: error },
    );
  }
  if (!Array.isArray(result))
    throw new AllocationContractViolation(`${strategy.name} returned ${typeof result}, not an array`);
  return result as MessageQueue[];
}

const sameList = (a: readonly MessageQueue[], b: readonly MessageQueue[]): boolean =>
  a.length === b.length && a.every((mq, i) => mqKey(mq) === mqKey(b[i]!));

/** One contract check: throws an AllocationContractViolation when strategies from `factory` break it. */
export type AllocationContractCheck = (factory: () => AllocationStrategy, options: AllocationContractOptions) => void;

function forEachCase(
  options: AllocationContractOptions,
  body: (input: Omit<AllocationInput, 'currentCID'>) => void,
): void {
  const random = new SeededRandom(options.seed ?? 7);
  const brokers = options.brokerNames ?? ['broker-a', 'broker-b', 'broker-c'];
  for (let i = 0; i < (options.cases ?? 200); i++) body(randomAllocationInput(random, brokers));
}

/** The contract's checks, each usable alone; `checkAllocationStrategy` runs them all. */
export const allocationContractChecks: Readonly<Record<string, AllocationContractCheck>> = {
  'has a non-empty name': (factory) => {
    const { name } = factory();
    if (typeof name !== 'string' || name.length === 0)
      throw new AllocationContractViolation(`name must be a non-empty string, got ${JSON.stringify(name)}`);
  },
  'is deterministic: the same input gives the same answer, on the same and on a new instance': (factory, options) => {
    const a = factory();
    const b = factory();
    forEachCase(options, (base) => {
      for (const currentCID of base.cidAll) {
        const input = { ...base, currentCID };
        const first = allocate(a, input);
        if (!sameList(first, allocate(a, input)) || !sameList(first, allocate(b, input))) {
          throw new AllocationContractViolation(
            `${a.name} answered differently for currentCID ${currentCID}; ${describeInput(input)}`,
          );
        }
      }
    });
  },
  'gives every queue to exactly one member of the group': (factory, options) => {
    const strategy = factory();
    forEachCase(options, (base) => {
      const owners = new Map<string, string>();
      const known = new Set(base.mqAll.map(mqKey));
      for (const currentCID of base.cidAll) {
        for (const mq of allocate(strategy, { ...base, currentCID })) {
          const key = mqKey(mq);
          if (!known.has(key))
            throw new AllocationContractViolation(
              `${strategy.name} gave ${currentCID} a queue not in mqAll: ${JSON.stringify(mq)}; ${describeInput({ ...base, currentCID })}`,
            );
          const other = owners.get(key);
          if (other !== undefined)
            throw new AllocationContractViolation(
              `${strategy.name} gave ${mq.brokerName}#${mq.queueId} to both ${other} and ${currentCID}; ${describeInput({ ...base, currentCID })}`,
            );
          owners.set(key, currentCID);
        }
      }
      const missing = base.mqAll.filter((mq) => !owners.has(mqKey(mq)));
      if (missing.length > 0)
        throw new AllocationContractViolation(
          `${strategy.name} gave nobody ${missing.map((mq) => `${mq.brokerName}#${mq.queueId}`).join(' ')}; ${describeInput({ ...base, currentCID: base.cidAll[0]! })}`,
        );
    });
  },
  'rejects an empty currentCID, mqAll or cidAll with AllocationError': (factory) => {
    const strategy = factory();
    const mq: MessageQueue = { topic: 'ContractTopic', brokerName: 'broker-a', queueId: 0 };
    const bad: [string, AllocationInput][] = [
      ['an empty currentCID', { consumerGroup: 'g', currentCID: '', mqAll: [mq], cidAll: ['cid-0'] }],
      ['an empty mqAll', { consumerGroup: 'g', currentCID: 'cid-0', mqAll: [], cidAll: ['cid-0'] }],
      ['an empty cidAll', { consumerGroup: 'g', currentCID: 'cid-0', mqAll: [mq], cidAll: [] }],
    ];
    for (const [what, input] of bad) {
      let thrown: unknown;
      try {
        strategy.allocate(frozen(input));
      } catch (error) {
        thrown = error;
      }
      if (!(thrown instanceof AllocationError))
        throw new AllocationContractViolation(
          `${strategy.name} must throw AllocationError for ${what}, ${thrown === undefined ? 'returned normally' : `threw ${String(thrown)}`}`,
        );
    }
  },
  'gives a member that is not in cidAll nothing': (factory, options) => {
    const strategy = factory();
    forEachCase({ ...options, cases: Math.min(options.cases ?? 200, 50) }, (base) => {
      const result = allocate(strategy, { ...base, currentCID: 'not-a-member@0' });
      if (result.length > 0)
        throw new AllocationContractViolation(
          `${strategy.name} gave a non-member ${result.length} queues; ${describeInput({ ...base, currentCID: 'not-a-member@0' })}`,
        );
    });
  },
  'gives a lone member every queue': (factory, options) => {
    const strategy = factory();
    forEachCase({ ...options, cases: Math.min(options.cases ?? 200, 50) }, (base) => {
      const input = { ...base, cidAll: [base.cidAll[0]!], currentCID: base.cidAll[0]! };
      const got = allocate(strategy, input);
      if (got.length !== base.mqAll.length)
        throw new AllocationContractViolation(
          `${strategy.name} gave a lone member ${got.length} of ${base.mqAll.length} queues; ${describeInput(input)}`,
        );
    });
  },
};

/** Runs every contract check; throws AllocationContractViolation at the first failure. */
export function checkAllocationStrategy(
  factory: () => AllocationStrategy,
  options: AllocationContractOptions = {},
): void {
  for (const check of Object.values(allocationContractChecks)) check(factory, options);
}
