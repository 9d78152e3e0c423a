import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatFieldSelector, formatLabelSelector, nameFilterOf } from './selectors.ts';

describe('selector strings for list and watch', () => {
  it('formats matchLabels (sorted) then matchExpressions with every operator', () => {
    const selector = formatLabelSelector({
      matchLabels: { tier: 'web', app: 'echo' },
      matchExpressions: [
        { key: 'env', operator: 'In', values: ['prod', 'dev'] },
        { key: 'zone', operator: 'NotIn', values: ['b'] },
        { key: 'managed', operator: 'Exists' },
        { key: 'legacy', operator: 'DoesNotExist' },
      ],
    });
    assert.equal(selector, 'app=echo,tier=web,env in (dev,prod),zone notin (b),managed,!legacy');
    assert.equal(formatLabelSelector(undefined), '');
  });

  it('formats field expressions and adds metadata.name for a single name', () => {
    const fieldSelector = {
      matchExpressions: [
        { field: 'metadata.namespace', operator: 'Equals', value: 'a' },
        { field: 'status.phase', operator: 'NotEquals', value: 'Done' },
        { field: 'spec.x', operator: '==', value: '1' },
      ],
    } as const;
    assert.equal(
      formatFieldSelector({ fieldSelector, nameSelector: { matchNames: ['one'] } }),
      'metadata.namespace=a,status.phase!=Done,spec.x=1,metadata.name=one',
    );
    assert.equal(formatFieldSelector({ nameSelector: { matchNames: ['a', 'b'] } }), '');
  });

  it('filters by name in the binding only when several names are selected', () => {
    assert.equal(nameFilterOf({ nameSelector: { matchNames: ['a'] } }), undefined);
    assert.equal(nameFilterOf({}), undefined);
    assert.deepEqual([...(nameFilterOf({ nameSelector: { matchNames: ['a', 'b'] } }) ?? [])], ['a', 'b']);
  });
});
