import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { labelValuesQuery, promqlNames } from './promql-names.ts';

describe('promqlNames', () => {
  it('finds selectors with their matchers, and grouping labels', () => {
    const names = promqlNames(
      'histogram_quantile(0.9, sum by (le, module) (rate(x_bucket{job=~"$job",module=~"$module"}[$__rate_interval])))',
    );
    assert.deepEqual(names, {
      selectors: [{ metric: 'x_bucket', labels: ['job', 'module'] }],
      grouping: ['le', 'module'],
    });
  });

  it('finds bare metric names beside keywords, functions, numbers and durations', () => {
    const names = promqlNames(
      'a == 1 unless on (instance, job) b\nand time() - c > 1e3 or vector(0) or sum without (pod) (d[5m] offset 1h)',
    );
    assert.deepEqual(
      names.selectors.map((selector) => selector.metric),
      ['a', 'b', 'c', 'd'],
    );
    assert.deepEqual(names.grouping, ['instance', 'job']);
  });

  it('keeps label values and regular expressions out of the names', () => {
    const names = promqlNames('rate(m{code=~"5..|<error>", queue="main"}[10m]) / rate(m[10m])');
    assert.deepEqual(names.selectors, [
      { metric: 'm', labels: ['code', 'queue'] },
      { metric: 'm', labels: [] },
    ]);
  });

  it("reads Grafana's label_values queries", () => {
    assert.deepEqual(labelValuesQuery('label_values(m{job=~"$job"}, module)'), {
      expression: 'm{job=~"$job"}',
      label: 'module',
    });
    assert.equal(labelValuesQuery('sum(m)'), undefined);
  });
});
