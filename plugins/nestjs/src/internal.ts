/** Internals for other mqkit packages; not a stable API for applications. */
import 'reflect-metadata';

export { ConsumerExplorer } from './module/consumer.explorer';
export { MqkitParamsFactory } from './params/mqkit-params.factory';
export { paramDecorator, type ParamPipe } from './params/param-decorator.factory';
