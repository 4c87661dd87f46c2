/**
 * Parameter kinds of `@Consumer` handler methods, stored under Nest's route-argument metadata key so Nest's own
 * ExternalContextCreator resolves them (and runs their pipes). PAYLOAD and CONTEXT use the numbers of Nest's
 * RpcParamtype, so `@Payload()` and `@Ctx()` from @nestjs/microservices mean the same on a `@Consumer` method.
 */
export const MqkitParamtype = {
  PAYLOAD: 3,
  CONTEXT: 6,
  MESSAGE: 31,
} as const;

export type MqkitParamtype = (typeof MqkitParamtype)[keyof typeof MqkitParamtype];
