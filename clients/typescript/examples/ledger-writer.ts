// Leads NAME and appends to the fenced ledger with the fencing token until COUNT appends are admitted or the
// lease is lost.
//
//   node dist/examples/ledger-writer.js ENDPOINTS LEDGER NAME [--id ID] [--count N] [--ttl MS] [--interval MS]
//                                       [--zombie]
//
// Prints 'elected NAME token=T lease=L', then 'admitted ENTRY token=T position=P' per append, 'rejected
// ENTRY token=T: DETAILS' when the ledger refuses a stale token, and 'lost NAME: REASON' when the holder's
// signal fires. Exit 0 after COUNT admitted appends, 1 when leadership was lost first, 4 after a refusal.
// --zombie (negative control) goes on writing after the signal fired, as a process that paused between its
// check and its write would: the ledger refuses those writes, which is what the token is for. TLS to Regent from
// $REGENT_CACERT/$REGENT_CERT/$REGENT_KEY, as for the regent CLI (connect() reads them; the ledger is plaintext).
import { connect, LedgerClient, hasCode, status } from 'regent-client';

function usage(msg: string): never {
  console.error(`error: ${msg}\nusage: ledger-writer ENDPOINTS LEDGER NAME [--id ID] [--count N] [--ttl MS] ` +
    '[--interval MS] [--zombie]');
  process.exit(2);
}

async function main(argv: string[]): Promise<number> {
  const pos: string[] = [];
  const opt = { id: `${process.pid}`, count: 5, ttl: 5000, interval: 200, zombie: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--zombie') opt.zombie = true;
    else if (a === '--id') opt.id = argv[++i] ?? usage('--id needs a value');
    else if (a === '--count' || a === '--ttl' || a === '--interval') {
      const v = Number(argv[++i]);
      if (!Number.isInteger(v) || v < 1) usage(`${a} needs a whole number >= 1`);
      opt[a.slice(2) as 'count' | 'ttl' | 'interval'] = v;
    } else if (a.startsWith('--')) usage(`unknown option ${a}`);
    else pos.push(a);
  }
  if (pos.length !== 3) usage('ENDPOINTS, LEDGER and NAME are required');
  const [endpoints, ledgerAddress, name] = pos;

  const client = connect(endpoints);
  const ledger = new LedgerClient(ledgerAddress);
  const holder = await client.elect(name, { ttl: opt.ttl, value: opt.id });
  console.log(`elected ${name} token=${holder.token} lease=${holder.lease}`);
  holder.on('lost', (reason: string) => console.log(`lost ${name}: ${reason}`));
  let code = 0;
  try {
    for (let n = 1, admitted = 0; admitted < opt.count; n++) {
      if (holder.signal.aborted && !opt.zombie) {
        code = 1;
        break;
      }
      const entry = `${opt.id} #${n}`;
      try {
        const r = await ledger.append(name, holder.token, entry);
        admitted++;
        console.log(`admitted ${entry} token=${holder.token} position=${r.position}`);
      } catch (e) {
        if (!hasCode(e, status.FAILED_PRECONDITION)) throw e;
        console.log(`rejected ${entry} token=${holder.token}: ${e.details}`);
        code = 4;
        break;
      }
      // the pace of the writes (a real writer would wait for work here)
      await new Promise((resolve) => setTimeout(resolve, opt.interval));
    }
  } finally {
    await holder.resign().catch(() => undefined); // unresigned, the lease expires after its TTL
    ledger.close();
    client.close();
  }
  return code;
}

main(process.argv.slice(2)).then((code) => process.exit(code), (e) => {
  console.error(`error: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
});
