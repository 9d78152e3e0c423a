import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseHookMetrics } from './hook-metrics.ts';

describe('parseHookMetrics', () => {
  it('reads the operations of the docs/hooks.md "Metrics from hooks" examples', () => {
    const text = [
      '{"name":"metric_name","action":"add","value":1,"labels":{"label1":"value1"}}',
      '{"name":"metric_name","action":"set","value":33,"labels":{"label1":"value1"}}',
      '{"name":"metric_name","action":"observe","value":42, "buckets": [1,2,5,10,20,50], "labels":{"label1":"value1"}}',
      '{"name":"metric_name","add":1,"labels":{"label1":"value1"}}',
      '{"group":"hook1", "name":"hook1_special_metric", "action":"set", "value":12, "labels":{"label1":"value1"}}',
      '{"group":"hook2", "name":"hook2_special_metric", "action":"set", "value":42}',
      '{"group":"group_name_1", "action":"expire"}',
      '',
    ].join('\n');
    const labels = { label1: 'value1' };
    assert.deepEqual(parseHookMetrics(text), {
      operations: [
        { action: 'add', name: 'metric_name', value: 1, labels, group: undefined },
        { action: 'set', name: 'metric_name', value: 33, labels, group: undefined },
        {
          action: 'observe',
          name: 'metric_name',
          value: 42,
          buckets: [1, 2, 5, 10, 20, 50],
          labels,
          group: undefined,
        },
        { action: 'add', name: 'metric_name', value: 1, labels, group: undefined },
        { action: 'set', name: 'hook1_special_metric', value: 12, labels, group: 'hook1' },
        { action: 'set', name: 'hook2_special_metric', value: 42, labels: {}, group: 'hook2' },
        { action: 'expire', group: 'group_name_1' },
      ],
      invalid: [],
    });
  });

  it('lets the set shortcut win over action and value, as shell-operator does', () => {
    const { operations } = parseHookMetrics('{"name":"m","action":"add","value":5,"set":7}');
    assert.deepEqual(operations, [{ action: 'set', name: 'm', value: 7, labels: {}, group: undefined }]);
  });

  it('treats an empty group as no group and an empty file as no operations', () => {
    assert.deepEqual(parseHookMetrics('{"name":"m","set":1,"group":""}').operations, [
      { action: 'set', name: 'm', value: 1, labels: {}, group: undefined },
    ]);
    assert.deepEqual(parseHookMetrics(''), { operations: [], invalid: [] });
    assert.deepEqual(parseHookMetrics('\n  \n'), { operations: [], invalid: [] });
  });

  it('reads objects that span lines and several objects on one line', () => {
    const text = '{\n  "name": "a",\n  "set": 1\n}\n{"name":"b","set":2}{"name":"c","set":3}\n';
    const { operations, invalid } = parseHookMetrics(text);
    assert.deepEqual(invalid, []);
    assert.deepEqual(
      operations.map((op) => (op.action === 'expire' ? op.group : op.name)),
      ['a', 'b', 'c'],
    );
  });

  it('reports each bad line with its number and reason and keeps the good ones', () => {
    const text = [
      '{"name":"ok_1","add":1}',
      'not json at all',
      '{"name":"broken", "set": 1',
      '{"name":"ok_2","set":2}',
      '{"name":"both","add":1,"set":2}',
      '{"name":"no_action","value":1}',
      '{"action":"set","value":1}',
      '{"name":"no_value","action":"set"}',
      '{"name":"no_buckets","action":"observe","value":1}',
      '{"group":"g","name":"grouped_observe","action":"observe","value":1,"buckets":[1]}',
      '{"action":"expire"}',
      '{"name":"bad_label","set":1,"labels":{"a":1}}',
      '{"name":"string_value","action":"set","value":"1"}',
      '{"name":"bad name","set":1}',
      '{"name":"decrease","add":-1}',
      '{"name":"unsorted","action":"observe","value":1,"buckets":[5,1]}',
      '42',
      '{"name":"ok_3","action":"observe","value":0.5,"buckets":[0.1,1]}',
    ].join('\n');
    const { operations, invalid } = parseHookMetrics(text);
    assert.deepEqual(
      operations.map((op) => (op.action === 'expire' ? op.group : op.name)),
      ['ok_1', 'ok_2', 'ok_3'],
    );
    assert.deepEqual(
      invalid.map(({ line, reason }) => [line, reason]),
      [
        [2, 'not valid JSON'],
        [3, 'not valid JSON'],
        [5, "'set' and 'add' are mutually exclusive"],
        [6, "one of 'action', 'set' or 'add' is required"],
        [7, "'name' is required"],
        [8, "'value' is required for action 'set'"],
        [9, "'buckets' is required for action 'observe'"],
        [10, "unsupported action 'observe' for grouped metrics"],
        [11, "unsupported action 'expire' without a 'group'; 'name' is required"],
        [12, "label 'a' must be a string"],
        [13, "'value' must be a finite number"],
        [14, "'bad name' is not a valid metric name"],
        [15, 'a counter cannot decrease: add a value ≥ 0'],
        [16, "'buckets' must be in increasing order"],
        [17, 'expected a JSON object, got number'],
      ],
    );
    assert.equal(invalid[0]?.excerpt, 'not json at all');
  });
});
