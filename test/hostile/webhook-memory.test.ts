import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { stallRequest, type StalledRequest } from '../http/raw-http.ts';
import { repoRoot } from '../repo-root.ts';

const SECRET = 'memory-secret';
const STALLED = 500;
const DECLARED = 1024 * 1024;
const SENT = 512 * 1024;
/** "A few tens of MiB": what 500 stalled strangers may cost the process at most. */
const GROWTH_LIMIT_MIB = 48;

function rssMiB(pid: number): number {
  const kib = /^VmRSS:\s+(\d+) kB$/mu.exec(readFileSync(`/proc/${String(pid)}/status`, 'utf8'))?.[1];
  return Number(kib) / 1024;
}

describe('the webhook receiver held by 500 stalled bodies', () => {
  let child: ChildProcess;
  let port = 0;
  before(async () => {
    child = spawn(
      process.execPath,
      ['--import', 'tsx', path.join(repoRoot, 'test/http/webhook-server-child.ts'), SECRET],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    port = await new Promise<number>((resolve) => {
      child.stdout?.once('data', (line: Buffer) => {
        resolve((JSON.parse(line.toString('utf8')) as { port: number }).port);
      });
    });
  });
  after(() => {
    child.kill('SIGKILL');
  });

  const signed = async (): Promise<number> => {
    const body = '{"ref":"refs/heads/main"}';
    const signature = `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`;
    const response = await fetch(`http://127.0.0.1:${String(port)}/hooks/git`, {
      method: 'POST',
      headers: { 'x-hub-signature-256': signature, connection: 'close' },
      body,
    });
    return response.status;
  };

  it('grows by a few tens of MiB at most, and signed requests get through during and after', async (t) => {
    const pid = child.pid ?? 0;
    assert.equal(await signed(), 202);
    const before = rssMiB(pid);
    const stalled: StalledRequest[] = [];
    const statuses: number[] = [];
    const forged = `x-hub-signature-256: sha256=${'0'.repeat(64)}\r\n`;
    let during = 0;
    for (let i = 0; i < STALLED; i += 1) {
      const head = `POST /hooks/git HTTP/1.1\r\nhost: x\r\ncontent-length: ${String(DECLARED)}\r\n${i % 2 === 0 ? forged : ''}\r\n`;
      const request = await stallRequest({ port }, head, SENT);
      void request.answered.then((status) => statuses.push(status));
      stalled.push(request);
      if (i === STALLED / 2) during = await signed();
    }
    const held = rssMiB(pid);
    const afterwards = await signed();
    const settled = rssMiB(pid);
    // The half without a signature header is refused from its headers alone; those answers are
    // awaited, not counted at a moment, so a busy machine delays them without failing the test.
    const unsignedAnswers = await Promise.all(
      stalled.filter((_, i) => i % 2 === 1).map((request) => request.answered),
    );
    for (const request of stalled) request.socket.destroy();
    const count = (status: number): number => statuses.filter((s) => s === status).length;
    t.diagnostic(
      `VmRSS ${before.toFixed(1)} MiB before, ${held.toFixed(1)} MiB with ${String(STALLED)} stalled bodies ` +
        `(${String(SENT / 1024)} KiB of a declared ${String(DECLARED / 1024)} KiB each), ${settled.toFixed(1)} MiB after; ` +
        `answers by then: ${String(count(401))}×401, ${String(count(503))}×503, ${String(STALLED - statuses.length)} still streaming`,
    );
    assert.equal(during, 202, 'a signed request while the bodies stall');
    assert.equal(afterwards, 202, 'a signed request after');
    assert.ok(held - before <= GROWTH_LIMIT_MIB, `grew by ${(held - before).toFixed(1)} MiB`);
    assert.deepEqual(
      unsignedAnswers.filter((status) => status !== 401),
      [],
      'every request without a signature is refused with 401 while its body is still unsent',
    );
  });
});
