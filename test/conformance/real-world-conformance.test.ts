import { describe, it } from 'node:test';
import { checkCase, documentedDifferences, realWorldCases } from './conformance-cases.ts';

describe('kaddon kustomize prints what kubectl kustomize (kustomize v5.5.0) printed on public projects’ trees', () => {
  for (const { dir, name, spec, expectedFile } of realWorldCases()) {
    const skip = documentedDifferences[name];
    it(`${name}: ${spec.source ?? ''}`, skip ? { skip } : {}, async () => {
      await checkCase(dir, spec, name, expectedFile);
    });
  }
});
