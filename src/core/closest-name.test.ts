import assert from 'node:assert/strict';
import { test } from 'node:test';
import { closestName } from './closest-name.ts';

const keys = ['requirements', 'healthTimeout', 'drift', 'name', 'weight'];

test('a key in another case is the key', () => {
  assert.equal(closestName('healthtimeout', keys), 'healthTimeout');
});

test('a key a letter or two away is suggested', () => {
  assert.equal(closestName('requirement', keys), 'requirements');
  assert.equal(closestName('dirft', keys), 'drift');
  assert.equal(closestName('wieght', keys), 'weight');
});

test('nothing is suggested for a name far from every key', () => {
  assert.equal(closestName('replicas', keys), undefined);
  assert.equal(closestName('x', keys), undefined);
});
