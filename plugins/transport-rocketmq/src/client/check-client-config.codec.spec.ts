import { sqlSubscription } from '@mqkit/core';
import { describe, expect, it } from 'vitest';
import { remotingCommand } from '../protocol/remoting-command';
import { checkClientConfigRequest, parseCheckClientConfigResponse } from './check-client-config.codec';

describe('CHECK_CLIENT_CONFIG codec', () => {
  it('sends CheckClientRequestBody with no header: clientId, group and the SQL92 subscription', () => {
    const request = checkClientConfigRequest('10.0.0.5@app', 'g', sqlSubscription('T', "a = 'x'", 1700000000000));
    expect(request.code).toBe(46);
    expect(request.extFields).toBeUndefined();
    expect(JSON.parse(request.body!.toString())).toEqual({
      clientId: '10.0.0.5@app',
      group: 'g',
      subscriptionData: {
        classFilterMode: false,
        codeSet: [],
        expressionType: 'SQL92',
        subString: "a = 'x'",
        subVersion: 1700000000000,
        tagsSet: [],
        topic: 'T',
      },
    });
  });

  it("reads ClientManageProcessor's answers: accepted, filter setting off, expression refused, anything else an error", () => {
    const answer = (code: number, remark?: string) => remotingCommand({ code, opaque: 1, flag: 1, remark });
    expect(parseCheckClientConfigResponse(answer(0), 'b')).toBeUndefined();
    expect(
      parseCheckClientConfigResponse(answer(1, 'The broker does not support consumer to filter message by SQL92'), 'b'),
    ).toEqual({
      setting: 'enablePropertyFilter',
      remark: 'The broker does not support consumer to filter message by SQL92',
    });
    expect(parseCheckClientConfigResponse(answer(23, 'ParseException: Encountered "<EOF>"'), 'b')).toEqual({
      remark: 'ParseException: Encountered "<EOF>"',
    });
    expect(() => parseCheckClientConfigResponse(answer(2, 'busy'), 'b')).toThrow(/subscription check failed: code 2/);
  });
});
