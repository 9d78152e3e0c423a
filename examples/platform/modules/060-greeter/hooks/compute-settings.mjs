#!/usr/bin/env node
// A module hook (seed 000 "Hooks"): it turns the user's `greeter.size` into the settings the
// manifests use, returned as a values patch. It runs before every render of the module.
import { readFileSync, writeFileSync } from 'node:fs';

if (process.argv[2] === '--config') {
  console.log(JSON.stringify({ configVersion: 'v1', beforeHelm: 10 }));
  process.exit(0);
}

const values = JSON.parse(readFileSync(process.env.VALUES_PATH, 'utf8'));
const size = values.greeter?.size ?? 'small';
const replicas = { small: 1, medium: 2, large: 3 }[size] ?? 1;
const patch = [
  { op: 'add', path: '/greeter/internal', value: { replicas, highAvailability: replicas > 1 } },
];
writeFileSync(process.env.VALUES_JSON_PATCH_PATH, JSON.stringify(patch));
