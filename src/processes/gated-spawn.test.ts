import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { execa } from 'execa';
import { gatedCommand, openGate } from './gated-spawn.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'kaddon-gate-'));
after(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** A command that writes its pid and what it reads on stdin to `<name>.out`. */
function recorder(name: string): string {
  const file = path.join(dir, `${name}.sh`);
  writeFileSync(file, `#!/bin/sh\nprintf '%s %s\\n' "$$" "$(cat)" > "${path.join(dir, `${name}.out`)}"\n`);
  chmodSync(file, 0o755);
  return file;
}

describe('a command spawned behind the gate', () => {
  it('starts once the gate is opened, in the gate’s own pid, with an empty stdin', async () => {
    const command = gatedCommand(recorder('opened'), [], process.env);
    assert.equal(command.gated, true);
    const subprocess = execa(command.file, command.args, {
      stdin: command.stdin,
      reject: false,
      detached: true,
    });
    const groupGone = openGate(command, subprocess);
    const result = await subprocess;
    groupGone();
    assert.equal(result.exitCode, 0);
    assert.equal(readFileSync(path.join(dir, 'opened.out'), 'utf8'), `${String(subprocess.pid)} \n`);
  });

  it('never starts when its spawner is gone before opening it (the pipe ends)', async () => {
    const command = gatedCommand(recorder('closed'), [], process.env);
    const subprocess = execa(command.file, command.args, { stdin: command.stdin, reject: false });
    subprocess.stdin?.end();
    const result = await subprocess;
    assert.equal(result.exitCode, 143);
    assert.equal(existsSync(path.join(dir, 'closed.out')), false);
  });

  it('passes the arguments through unchanged', async () => {
    const command = gatedCommand('printf', ['%s|', 'a b', '$HOME', "'q'", '-n'], process.env);
    assert.equal(command.gated, true);
    const subprocess = execa(command.file, command.args, { stdin: command.stdin, reject: false });
    openGate(command, subprocess)();
    assert.equal((await subprocess).stdout, "a b|$HOME|'q'|-n|");
  });

  it('with keepStdin, leaves what follows the gate’s line to the command', async () => {
    const command = gatedCommand(recorder('kept'), [], process.env, { keepStdin: true });
    const subprocess = execa(command.file, command.args, {
      stdin: command.stdin,
      reject: false,
      detached: true,
    });
    openGate(command, subprocess)();
    subprocess.stdin?.end('first line\nsecond');
    assert.equal((await subprocess).exitCode, 0);
    assert.equal(
      readFileSync(path.join(dir, 'kept.out'), 'utf8'),
      `${String(subprocess.pid)} first line\nsecond\n`,
    );
  });

  it('adds no PWD to an environment that has none', async () => {
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
    const command = gatedCommand('env', [], env);
    const subprocess = execa(command.file, command.args, { stdin: command.stdin, env, extendEnv: false });
    openGate(command, subprocess)();
    assert.deepEqual(
      (await subprocess).stdout.split('\n').map((line) => line.split('=')[0]),
      ['PATH'],
    );
  });

  it('is left out for a command that cannot be run, so the spawn reports its own error', async () => {
    const missing = gatedCommand(path.join(dir, 'missing'), [], process.env);
    assert.deepEqual(missing, {
      file: path.join(dir, 'missing'),
      args: [],
      stdin: 'ignore',
      gated: false,
      keepsStdin: false,
    });
    assert.equal(gatedCommand('kaddon-no-such-command', [], process.env).gated, false);
    writeFileSync(path.join(dir, 'plain'), 'not executable');
    assert.equal(gatedCommand(path.join(dir, 'plain'), [], process.env).gated, false);
    const result = await execa(missing.file, missing.args, { reject: false });
    assert.equal(result.code, 'ENOENT');
  });
});
