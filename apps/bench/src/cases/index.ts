import type { BenchCase } from './bench-case';
import { offsetsCase } from './offsets.case';
import { backlogCase } from './backlog.case';
import { pipelineCase } from './pipeline.case';
import { rocketmqCase } from './rocketmq.case';
import { produceCase } from './produce.case';
import { latencyCase } from './latency.case';
import { compareCase } from '../compare/compare.case';
import { chaosCase } from '../chaos/chaos.case';
import { scaleCase } from './scale.case';
import { compressionCase } from './compression.case';

/** Every case, in the order `npm run bench` runs the embedded ones. */
export const CASES: readonly BenchCase[] = [
  pipelineCase,
  backlogCase,
  offsetsCase,
  rocketmqCase,
  produceCase,
  latencyCase,
  compareCase,
  chaosCase,
  scaleCase,
  compressionCase,
];
