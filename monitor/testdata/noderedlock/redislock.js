// Takes the lock "jobs:npm" with npm's redislock 1.3.0 (danielstjules/redislock) on every master given as an
// argument (host:port), with one Lock's token (its uuid.v1() _id) on all of them, and prints the token. The
// locks are left to expire (30 s).
'use strict';
const redis = require('redis');
const redislock = require('redislock');

async function main() {
  const addrs = process.argv.slice(2);
  let id;
  for (const addr of addrs) {
    const [host, port] = addr.split(':');
    const client = redis.createClient({ host, port: Number(port) });
    const lock = redislock.createLock(client, { timeout: 30000, retries: 0 });
    if (id === undefined) id = lock._id;
    lock._id = id; // one holder on every master, as a Redlock client would be
    await lock.acquire('jobs:npm');
    client.quit();
  }
  process.stdout.write(JSON.stringify({ token: id }) + '\n');
}

main().catch((err) => {
  process.stderr.write(String(err && err.stack || err) + '\n');
  process.exit(1);
});
