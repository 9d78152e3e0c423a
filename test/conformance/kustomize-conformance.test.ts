import { describe, it } from 'node:test';
import { checkCase, CORPORA, corpusCases, documentedDifferences } from './conformance-cases.ts';

for (const corpus of CORPORA) {
  describe(`kaddon kustomize reproduces kustomize's behaviour (corpus ${corpus})`, () => {
    for (const { dir, name, spec } of corpusCases(corpus)) {
      const skip = documentedDifferences[name];
      it(`${name}: ${spec.description ?? spec.source ?? ''}`, skip ? { skip } : {}, async () => {
        await checkCase(dir, spec, name);
      });
    }
  });
}
