import { execFileSync } from 'node:child_process';

/** Whether `kubectl` (the kustomize oracle of the tests) is installed; tests that compare with it skip otherwise. */
export function hasKubectl(): boolean {
  try {
    execFileSync('kubectl', ['version', '--client'], { stdio: 'ignore', timeout: 10_000 });
    return true;
  } catch {
    return false;
  }
}
