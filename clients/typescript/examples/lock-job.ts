// Runs a job under a lock: one process at a time runs it, and it checks the lock before each step.
//
//   node dist/examples/lock-job.js ENDPOINTS NAME [STEPS]
//
// lock() waits until this process holds NAME, keeps its lease alive, and unlock (holder.resign()) lets the next
// waiter in, with a larger fencing token. Prints 'locked NAME token=T at=MS', 'step I token=T' per step and
// 'unlocked NAME at=MS' (MS: wall clock, milliseconds). Exit 0 after STEPS steps (default 3), 1 when the lock
// was lost first. TLS from $REGENT_CACERT/$REGENT_CERT/$REGENT_KEY, as for the regent CLI (connect() reads them).
import { connect } from 'regent-client';

async function main(endpoints: string, name: string, steps: number): Promise<number> {
  const client = connect(endpoints);
  try {
    const lock = await client.lock(name, { ttl: 5_000, value: `pid ${process.pid}` });
    console.log(`locked ${name} token=${lock.token} at=${Date.now()}`);
    try {
      for (let i = 1; i <= steps; i++) {
        if (lock.signal.aborted) {
          console.log(`lost ${name}: ${String(lock.signal.reason)}`);
          return 1;
        }
        console.log(`step ${i} token=${lock.token}`);
        await new Promise((resolve) => setTimeout(resolve, 100)); // the job's work
      }
      return 0;
    } finally {
      console.log(`unlocked ${name} at=${Date.now()}`);
      await lock.resign(); // unlock, and revoke the lease
    }
  } finally {
    client.close();
  }
}

const [endpoints, name, steps] = process.argv.slice(2);
if (!endpoints || !name) {
  console.error('usage: lock-job ENDPOINTS NAME [STEPS]');
  process.exit(2);
}
main(endpoints, name, Number(steps ?? 3)).then((code) => process.exit(code), (e) => {
  console.error(`error: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
});
