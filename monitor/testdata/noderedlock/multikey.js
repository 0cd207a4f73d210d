// Takes one lock over the keys given after "--" with node-redlock 4.2.0 (redlock.lock([...], ttl): one random
// token on every key, on every master given before "--" as host:port), prints its token, and leaves the lock
// to expire (30 s) without releasing it.
'use strict';
const Redis = require('ioredis');
const Redlock = require('redlock');

async function main() {
  const args = process.argv.slice(2);
  const cut = args.indexOf('--');
  const clients = args.slice(0, cut).map((addr) => {
    const [host, port] = addr.split(':');
    return new Redis({ host, port: Number(port), maxRetriesPerRequest: 0 });
  });
  const redlock = new Redlock(clients, { retryCount: 0 });
  const lock = await redlock.lock(args.slice(cut + 1), 30000);
  process.stdout.write(JSON.stringify({ token: lock.value }) + '\n');
  clients.forEach((c) => c.disconnect());
}

main().catch((err) => {
  process.stderr.write(String(err && err.stack || err) + '\n');
  process.exit(1);
});
