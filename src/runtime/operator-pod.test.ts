import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { choosePod } from './operator-pod.ts';

const pod = (name: string, phase: string, ready: boolean): Record<string, unknown> => ({
  metadata: { name },
  status: { phase, conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
});

describe('kaddon ui: the Pod it forwards to', () => {
  const pods = [
    pod('kaddon-a', 'Running', true),
    pod('kaddon-b', 'Running', true),
    pod('kaddon-c', 'Pending', false),
  ];
  const name = (chosen: Record<string, unknown> | undefined): unknown =>
    (chosen?.metadata as { name?: string } | undefined)?.name;

  it("is the leader Lease's holder when it is Running and Ready: only the leader serves the page", () => {
    assert.equal(name(choosePod(pods, 'kaddon-b')), 'kaddon-b');
  });

  it('is the first Running and Ready Pod without a Lease, or when the holder is not one of them', () => {
    assert.equal(name(choosePod(pods, undefined)), 'kaddon-a');
    assert.equal(name(choosePod(pods, 'kaddon-c')), 'kaddon-a');
    assert.equal(name(choosePod(pods, 'gone')), 'kaddon-a');
  });

  it('is none when no Pod is Running and Ready', () => {
    assert.equal(
      choosePod([pod('kaddon-c', 'Pending', false), pod('kaddon-d', 'Running', false), 'junk'], 'kaddon-d'),
      undefined,
    );
  });
});
