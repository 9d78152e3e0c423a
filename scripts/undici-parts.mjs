// What the bundle takes from `undici` (scripts/build.mjs points the bundle's `undici` imports here):
// the Agent and ProxyAgent kaddon's connections use (src/delivery/connection-config.ts) and
// client-node's configuration makes, and the fetch client-node's watch and generated API call.
// undici's own entry loads every part of it (mock agents, cache stores, WebSocket, EventSource,
// interceptors, …), and the operator kept them all for its whole life: about 2 MiB of heap, and
// source text. These are the modules that entry takes the three from, so they are the same
// classes and function; test/package/undici-parts.test.ts checks that. A name the bundle imports
// that is not exported here fails the build.
export { default as Agent } from 'undici/lib/dispatcher/agent.js';
export { default as ProxyAgent } from 'undici/lib/dispatcher/proxy-agent.js';
export { fetch } from 'undici/lib/web/fetch/index.js';
