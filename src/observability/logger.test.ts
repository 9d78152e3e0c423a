import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createCapturingLogger, createLogger, type LoggerOptions } from './logger.ts';

function collect(options: Omit<LoggerOptions, 'sink'>): { lines: string[]; options: LoggerOptions } {
  const lines: string[] = [];
  return { lines, options: { ...options, sink: { write: (chunk: string) => lines.push(chunk) } } };
}

const fixedTime = (): Date => new Date('2026-11-21T10:00:00.000Z');

describe('createLogger', () => {
  it('writes JSON lines with level, time, message and the child fields', () => {
    const { lines, options } = collect({ type: 'json', level: 'info', noTime: false, now: fixedTime });
    const logger = createLogger(options).child({ module: 'echo-server', hook: 'hooks/a.sh' });
    logger.info('line from the hook', { output: 'stdout', task: undefined });
    assert.deepEqual(lines, [
      '{"level":"info","time":"2026-11-21T10:00:00.000Z","msg":"line from the hook","module":"echo-server","hook":"hooks/a.sh","output":"stdout"}\n',
    ]);
  });

  it('leaves the time out with LOG_NO_TIME and drops entries below the level', () => {
    const { lines, options } = collect({ type: 'json', level: 'info', noTime: true });
    const logger = createLogger(options);
    logger.debug('hidden');
    logger.error('shown', { queue: 'main' });
    assert.deepEqual(lines, ['{"level":"error","msg":"shown","queue":"main"}\n']);
  });

  it('writes text lines as key=value pairs, quoting where needed, one line per entry', () => {
    const { lines, options } = collect({ type: 'text', level: 'debug', noTime: true });
    createLogger(options).debug('two\nlines', { hook: 'hooks/a.sh', binding: 'on kube', count: 3 });
    assert.deepEqual(lines, ['level=debug msg="two\\nlines" hook=hooks/a.sh binding="on kube" count=3\n']);
  });

  it('writes LOG_TYPE color as text, without colour codes', () => {
    const { lines, options } = collect({ type: 'color', level: 'info', noTime: true });
    createLogger(options).info('module run', { module: 'echo-server', queue: 'main' });
    assert.deepEqual(lines, ['level=info msg="module run" module=echo-server queue=main\n']);
  });

  it('with LOG_LEVEL error writes errors only, and with a time unless LOG_NO_TIME', () => {
    const { lines, options } = collect({ type: 'text', level: 'error', noTime: false, now: fixedTime });
    const logger = createLogger(options);
    logger.debug('hidden');
    logger.info('hidden too');
    logger.error('shown', { task: 'ModuleRun:main:echo-server' });
    assert.deepEqual(lines, [
      'time=2026-11-21T10:00:00.000Z level=error msg=shown task=ModuleRun:main:echo-server\n',
    ]);
  });

  it('keeps its own line fields when a field is named like one', () => {
    const { lines, options } = collect({ type: 'json', level: 'info', noTime: true });
    createLogger(options).info('message', { msg: 'field', level: 'x' });
    assert.deepEqual(lines, ['{"level":"info","msg":"message","fields.msg":"field","fields.level":"x"}\n']);
  });
});

describe('createCapturingLogger', () => {
  it('keeps entries with merged fields, the child winning over the parent', () => {
    const logger = createCapturingLogger('info');
    const child = logger.child({ module: 'a', hook: 'h1' }).child({ hook: 'h2' });
    child.debug('ignored');
    child.info('kept', { output: 'stderr' });
    assert.deepEqual(logger.entries, [
      { level: 'info', msg: 'kept', fields: { module: 'a', hook: 'h2', output: 'stderr' } },
    ]);
  });
});
