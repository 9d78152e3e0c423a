import { createRequire } from 'node:module';
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import type { JsonValue } from '../core/json.ts';

/** What the worker answers for one evaluation, with the request's number. */
type JqWorkerReply = { readonly id: number } & (
  { readonly outputs: JsonValue[] } | { readonly error: string }
);

/** One evaluation that did not finish in its budget; the worker was stopped and will be replaced. */
export class JqBudgetExceeded extends Error {}

/**
 * The worker's code, run with `eval` so it needs no file of its own (the same from src/ through tsx
 * and from dist/): it loads jq-wasm's CommonJS build from the path it is given, then answers each
 * request on its port and wakes the waiting caller through the shared flag.
 */
const WORKER_CODE = `
const { parentPort, workerData } = require('node:worker_threads');
const flag = new Int32Array(workerData.flag);
const reply = (message) => {
  workerData.port.postMessage(message);
  Atomics.store(flag, 0, 1);
  Atomics.notify(flag, 0);
};
require(workerData.jqPath).loadJq().then((jq) => {
  parentPort.on('message', ({ id, filter, input }) => {
    try {
      reply({ id, outputs: jq.json(input, filter) });
    } catch (error) {
      reply({ id, error: error instanceof Error ? error.message : String(error) });
    }
  });
  reply({ ready: true });
}, (error) => reply({ error: 'jq-wasm did not load: ' + String(error) }));
`;

const READY_TIMEOUT_MS = 60_000;

/**
 * jq-wasm in a worker thread, called synchronously: the caller blocks on a shared flag for at most
 * the budget, so a filter that never ends (`def f: f; f`) cannot hang kaddon. When the budget runs
 * out the worker is terminated and a fresh one started for the next call.
 */
export class JqWorker {
  readonly #jqPath = createRequire(import.meta.url).resolve('jq-wasm');
  #worker: Worker | undefined;
  #port: MessagePort | undefined;
  #flag = new Int32Array(new SharedArrayBuffer(4));
  #lastId = 0;

  /**
   * Every output of `filter` on `input`; throws JqBudgetExceeded, or Error with jq's message. The
   * answer is the one numbered as the request: a reply to another request is never taken for it.
   */
  evaluate(filter: string, input: JsonValue, budgetMs: number): JsonValue[] {
    const port = this.#ready();
    const id = ++this.#lastId;
    Atomics.store(this.#flag, 0, 0);
    this.#worker?.postMessage({ id, filter, input });
    if (Atomics.wait(this.#flag, 0, 0, budgetMs) === 'timed-out') {
      this.stop();
      throw new JqBudgetExceeded(`did not finish within ${String(budgetMs / 1000)} s`);
    }
    // The worker posts its reply before it raises the flag: the reply is queued by now.
    const reply = this.#take(port, id);
    if (reply === undefined) throw new Error('the jq worker sent no answer');
    if ('error' in reply) throw new Error(reply.error);
    return reply.outputs;
  }

  /** This request's reply, if queued; replies to earlier requests are dropped on the way. */
  #take(port: MessagePort, id: number): JqWorkerReply | undefined {
    for (;;) {
      const reply = receiveMessageOnPort(port)?.message as JqWorkerReply | undefined;
      if (reply === undefined || reply.id === id) return reply;
    }
  }

  /** Ends the worker; the next evaluation starts another. */
  stop(): void {
    void this.#worker?.terminate();
    this.#port?.close();
    this.#worker = undefined;
    this.#port = undefined;
  }

  #ready(): MessagePort {
    if (this.#worker && this.#port) return this.#port;
    const channel = new MessageChannel();
    this.#flag = new Int32Array(new SharedArrayBuffer(4));
    const worker = new Worker(WORKER_CODE, {
      eval: true,
      workerData: { jqPath: this.#jqPath, flag: this.#flag.buffer, port: channel.port2 },
      transferList: [channel.port2],
    });
    // The worker never keeps kaddon alive: a command ends when its work does.
    worker.unref();
    channel.port1.unref();
    if (Atomics.wait(this.#flag, 0, 0, READY_TIMEOUT_MS) === 'timed-out') {
      void worker.terminate();
      throw new Error('the jq worker did not start');
    }
    const ready = receiveMessageOnPort(channel.port1)?.message as
      { ready?: boolean; error?: string } | undefined;
    if (ready?.ready !== true) {
      void worker.terminate();
      throw new Error(ready?.error ?? 'the jq worker did not start');
    }
    this.#worker = worker;
    this.#port = channel.port1;
    return channel.port1;
  }
}
