// A second real Redlock client for the monitor's ground-truth tests: node-redlock v4 on ioredis, contending
// for the given resources until the given time. It writes one JSON line per holding to stdout:
// {"resource", "token", "from", "to"}, from when lock() resolved to when unlock() was called, in ms since the
// epoch, so the test can check what the monitor reported against what this client held.
//
// Environment: GT_MASTERS (host:port,...), GT_RESOURCES (name,...), GT_CLIENTS (clients per resource),
// GT_WAIT_MS (how long to wait for a master's answer), GT_UNTIL (ms since the epoch), GT_TTL_MS,
// GT_MIN_HOLD_MS, GT_MAX_HOLD_MS.
'use strict';
const Redis = require('ioredis');
const Redlock = require('redlock');

const env = (name) => {
  const v = process.env[name];
  if (v === undefined) throw new Error(name + ' is not set');
  return v;
};
const masters = env('GT_MASTERS').split(',');
const resources = env('GT_RESOURCES').split(',');
const perResource = Number(env('GT_CLIENTS'));
const until = Number(env('GT_UNTIL'));
const ttl = Number(env('GT_TTL_MS'));
const minHold = Number(env('GT_MIN_HOLD_MS'));
const maxHold = Number(env('GT_MAX_HOLD_MS'));
const wait = Number(env('GT_WAIT_MS'));

// Clients that wait out a stopped master (see clientWait in groundtruth_test.go).
const clients = masters.map((addr) => {
  const [host, port] = addr.split(':');
  return new Redis({ host, port: Number(port), commandTimeout: wait, connectTimeout: 100, maxRetriesPerRequest: 0,
    enableOfflineQueue: false, retryStrategy: () => 50 });
});
clients.forEach((c) => c.on('error', () => {}));
const redlock = new Redlock(clients, { retryCount: 0 });
redlock.on('clientError', () => {});

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const between = (lo, hi) => lo + Math.random() * (hi - lo);

async function worker(resource) {
  while (Date.now() < until) {
    let lock;
    try {
      lock = await redlock.lock(resource, ttl);
    } catch (e) {
      await sleep(between(10, 60));
      continue;
    }
    const from = Date.now();
    await sleep(Math.min(between(minHold, maxHold), Math.max(0, until - from)));
    const to = Date.now();
    try {
      await lock.unlock();
    } catch (e) {
      // not released on a quorum: the test sees what the masters hold
    }
    process.stdout.write(JSON.stringify({ resource, token: lock.value, from, to }) + '\n');
    await sleep(between(0, 30));
  }
}

Promise.all(resources.flatMap((r) => Array.from({ length: perResource }, () => worker(r))))
  .then(() => clients.forEach((c) => c.disconnect()));
