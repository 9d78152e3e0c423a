import type { Readable } from 'node:stream';
import { execa } from 'execa';
import { KaddonError } from '../core/errors.ts';
import { isJsonObject, type JsonObject } from '../core/json.ts';
import { cleanText } from '../core/untrusted-text.ts';
import { gatedCommand, openGate } from '../processes/gated-spawn.ts';

/** A kubeconfig user's `exec` section (client-go's ExecConfig). */
export interface ExecConfig {
  readonly command: string;
  readonly args?: readonly string[];
  readonly env?: readonly { readonly name: string; readonly value: string }[];
  readonly apiVersion?: string;
}

/** What the plugin gave: a bearer token, or a client certificate and key (PEM). */
export interface ExecCredential {
  readonly token?: string;
  readonly clientCertificateData?: string;
  readonly clientKeyData?: string;
}

/**
 * An exec plugin that could not give a credential. The message names the kubeconfig user and the
 * plugin and says what is wrong, and never quotes what the plugin printed: that is where tokens are.
 */
class ExecCredentialError extends KaddonError {
  readonly code = 'exec-credential-invalid';
  constructor(user: string, command: string, problem: string) {
    super(
      `kubeconfig user '${user}': exec plugin '${command}' ${problem}.`,
      'Run the plugin by hand and check that it prints one ExecCredential JSON object with status.token, or status.clientCertificateData and status.clientKeyData (Kubernetes "client-go credential plugins").',
    );
  }
}

/** A plugin fetches a token over the network at most; client-go has no limit, kaddon does. */
const EXEC_PLUGIN_TIMEOUT_MS = 60_000;
/** An ExecCredential with a certificate chain is a few KB. */
const MAX_STDOUT_BYTES = 1024 * 1024;
/** The most of a failing plugin's stderr that is shown: its last line, cut. */
const MAX_STDERR_LINE_CHARS = 200;
const KILL_GRACE_MS = 2_000;

/**
 * Runs a kubeconfig user's exec plugin as client-go does (KUBERNETES_EXEC_INFO, the plugin's env
 * over kaddon's, stdin closed since kaddon is never interactive) and keeps its credential until
 * its expirationTimestamp. Replaces @kubernetes/client-node's runner, which has no time limit,
 * keeps all of stderr for its message and quotes unparsable output in its error.
 */
export class ExecCredentialSource {
  readonly #user: string;
  readonly #exec: ExecConfig;
  #cached: { credential: ExecCredential; expiresAt: number | undefined } | undefined;
  #running: Promise<ExecCredential> | undefined;

  constructor(user: string, exec: ExecConfig) {
    this.#user = user;
    this.#exec = exec;
  }

  /** The credential, from the cache while it has not expired. */
  async credential(now = Date.now()): Promise<ExecCredential> {
    const cached = this.#cached;
    if (cached && (cached.expiresAt === undefined || cached.expiresAt > now)) return cached.credential;
    this.#running ??= this.#run().finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  /** The server refused the credential: the plugin runs again on the next request. */
  forget(): void {
    this.#cached = undefined;
  }

  async #run(): Promise<ExecCredential> {
    const stdout = await this.#runPlugin();
    const { credential, expiresAt } = this.#parse(stdout);
    this.#cached = { credential, expiresAt };
    return credential;
  }

  #fail(problem: string): never {
    throw new ExecCredentialError(this.#user, this.#exec.command, problem);
  }

  async #runPlugin(): Promise<string> {
    if (this.#exec.command === '') this.#fail('has no command');
    const env: Record<string, string> = {
      KUBERNETES_EXEC_INFO: JSON.stringify({
        apiVersion: this.#exec.apiVersion ?? 'client.authentication.k8s.io/v1',
        kind: 'ExecCredential',
        spec: { interactive: false },
      }),
    };
    for (const entry of this.#exec.env ?? []) env[entry.name] = entry.value;
    const command = gatedCommand(this.#exec.command, this.#exec.args ?? [], { ...process.env, ...env });
    const subprocess = execa(command.file, [...command.args], {
      env,
      stdin: command.stdin,
      buffer: false,
      reject: false,
      detached: true,
    });
    const groupGone = openGate(command, subprocess);
    const stdout = collect(subprocess.stdout, MAX_STDOUT_BYTES);
    const stderr = lastLine(subprocess.stderr);
    const deadline = { passed: false };
    const timer = setTimeout(() => {
      deadline.passed = true;
      endGroup(subprocess.pid);
    }, EXEC_PLUGIN_TIMEOUT_MS);
    const result = await subprocess;
    clearTimeout(timer);
    groupGone();
    const [out, err] = await Promise.all([stdout, stderr]);
    if (deadline.passed) this.#fail(`did not finish within ${String(EXEC_PLUGIN_TIMEOUT_MS / 1000)} s`);
    if (result.exitCode === undefined && result.signal === undefined)
      this.#fail(`cannot be run (${result.code ?? 'spawn failed'})`);
    if (result.exitCode !== 0) {
      const how =
        result.signal === undefined
          ? `exited with code ${String(result.exitCode)}`
          : `was ended by ${result.signal}`;
      this.#fail(err === '' ? how : `${how}: ${err}`);
    }
    if (out.overflowed) this.#fail(`printed more than ${String(MAX_STDOUT_BYTES / 1024)} KiB on stdout`);
    return out.text;
  }

  #parse(stdout: string): { credential: ExecCredential; expiresAt: number | undefined } {
    let parsed: unknown;
    try {
      parsed = JSON.parse(stdout) as unknown;
    } catch {
      this.#fail(
        `printed ${String(Buffer.byteLength(stdout))} bytes that are not JSON (not shown: they may hold a credential)`,
      );
    }
    if (!isJsonObject(parsed) || parsed.kind !== 'ExecCredential')
      this.#fail('printed JSON that is not an ExecCredential object (not shown: it may hold a credential)');
    const expected = this.#exec.apiVersion;
    if (expected !== undefined && parsed.apiVersion !== expected)
      this.#fail(
        `printed an ExecCredential whose apiVersion is not ${expected}, the one the kubeconfig asks for`,
      );
    const status = parsed.status;
    if (!isJsonObject(status)) this.#fail('printed an ExecCredential without a status object');
    return { credential: this.#credentialOf(status), expiresAt: this.#expiry(status) };
  }

  #credentialOf(status: JsonObject): ExecCredential {
    const text = (value: unknown): string | undefined =>
      typeof value === 'string' && value !== '' ? value : undefined;
    const token = text(status.token);
    const cert = text(status.clientCertificateData);
    const key = text(status.clientKeyData);
    if ((cert === undefined) !== (key === undefined))
      this.#fail('printed a status with only one of clientCertificateData and clientKeyData');
    if (token === undefined && cert === undefined)
      this.#fail('printed a status with neither a token nor a client certificate and key');
    return {
      ...(token === undefined ? {} : { token }),
      ...(cert === undefined || key === undefined ? {} : { clientCertificateData: cert, clientKeyData: key }),
    };
  }

  #expiry(status: JsonObject): number | undefined {
    const value = status.expirationTimestamp;
    if (value === undefined || value === null) return undefined;
    const at = typeof value === 'string' ? Date.parse(value) : Number.NaN;
    if (Number.isNaN(at)) this.#fail('printed a status.expirationTimestamp that is not an RFC 3339 time');
    return at;
  }
}

function endGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  const signal = (name: NodeJS.Signals): void => {
    try {
      process.kill(-pid, name);
    } catch {
      // The group has ended.
    }
  };
  signal('SIGTERM');
  setTimeout(signal, KILL_GRACE_MS, 'SIGKILL').unref();
}

/** Up to `maxBytes` of the stream; the rest is read and dropped, so the plugin never blocks. */
async function collect(stream: Readable, maxBytes: number): Promise<{ text: string; overflowed: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  let overflowed = false;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    if (size + chunk.length > maxBytes) overflowed = true;
    else chunks.push(chunk);
    size += chunk.length;
  }
  return { text: Buffer.concat(chunks).toString('utf8'), overflowed };
}

/**
 * A plugin may print its token on stderr too: every run of 20 or more token characters with a
 * letter and a digit in it (a bearer token, a JWT, a key) is masked.
 */
function maskTokens(text: string): string {
  return text.replace(/[A-Za-z0-9+/=_.~-]{20,}/g, (run) =>
    /[A-Za-z]/.test(run) && /\d/.test(run) ? '***' : run,
  );
}

/**
 * The last non-empty line of a stream, cut to MAX_STDERR_LINE_CHARS with control characters
 * dropped; only a bounded window is kept, however much the plugin writes.
 */
async function lastLine(stream: Readable): Promise<string> {
  let window = '';
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    window = (window + chunk.toString('utf8')).slice(-4 * MAX_STDERR_LINE_CHARS);
  }
  const line =
    window
      .split('\n')
      .filter((part) => part.trim() !== '')
      .pop() ?? '';
  // The shared cleaning of untrusted text (escapes out, controls replaced), then tokens masked.
  const clean = maskTokens(cleanText(line, { maxBytes: 4 * MAX_STDERR_LINE_CHARS }).trim());
  return clean.length > MAX_STDERR_LINE_CHARS ? `${clean.slice(0, MAX_STDERR_LINE_CHARS)}…` : clean;
}
