/** A test for module names against globs where `*` is any run of characters and nothing else is special. */
export function compileModuleGlobs(globs: readonly string[]): (module: string) => boolean {
  const patterns = globs.map((glob) => new RegExp(`^${glob.split('*').map(escapeRegExp).join('.*')}$`, 'u'));
  return (module) => patterns.some((pattern) => pattern.test(module));
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
