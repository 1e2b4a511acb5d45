// Works on the partitions of an ownership group that this process owns, each with its fencing token.
//
//   node dist/examples/group-worker.js ENDPOINTS GROUP MEMBER [STEPS] [--partitions N] [--members M]
//
// Joins GROUP (created with N partitions, default 4) as MEMBER; the group gives each member its share of the
// partitions and moves them as members come and go (docs/ownership.md). Prints 'joined GROUP as MEMBER lease=L',
// then 'assigned P token=T' and 'revoked P' as the group tells it, and every 100 ms while the assignment is
// settled (every partition owned, none moving, this member told all of its share) 'step I owns P=T,P=T'
// (partition=fencing token, by partition): one step of the work, whose writes to partition P carry token T. The
// first step waits until M members (default 1) have joined, so that two workers started at once have split the
// partitions before either works. Leaves the group (its partitions move on at once) after STEPS steps, or on
// SIGTERM/SIGINT (STEPS 0, the default: only then), printing 'left GROUP at=MS' (MS: wall clock, milliseconds).
// TLS from $REGENT_CACERT/$REGENT_CERT/$REGENT_KEY, as for the regent CLI (connect() reads them).
// Exit 0; 1 when the lease was lost first ('lost GROUP: REASON').
import { connect } from 'regent-client';
import type { Ownership, RegentClient } from 'regent-client';

/** ms between two steps: the pace of the work, not a wait for anything. */
const STEP_MS = 100;

/** Whether the group's assignment is at rest and this member has been told its whole share; and its member count. */
async function settled(client: RegentClient, member: Ownership): Promise<{ atRest: boolean; members: number }> {
  const s = await client.groupStatus(member.group);
  const mine = s.owners.filter((o) => o.owner === member.member);
  const owned = member.owned();
  const atRest = s.owners.length === s.partitions && s.owners.every((o) => o.owner !== '' && o.next === '')
    && mine.length === owned.size && mine.every((o) => owned.get(o.partition) === o.token);
  return { atRest, members: s.members.length };
}

async function main(endpoints: string, group: string, name: string, steps: number, partitions: number,
  members: number): Promise<number> {
  const stop = new AbortController();
  for (const sig of ['SIGTERM', 'SIGINT'] as const) process.once(sig, () => stop.abort(sig));
  const client = connect(endpoints);
  try {
    const member = await client.joinGroup(group, name, { partitions, ttl: 5_000 });
    member.on('assigned', (p: number, token: number) => console.log(`assigned ${p} token=${token}`));
    member.on('revoked', (p: number) => console.log(`revoked ${p}`));
    let lost: string | undefined;
    member.once('lost', (reason: string) => {
      lost = reason;
      stop.abort(reason);
    });
    console.log(`joined ${group} as ${name} lease=${member.lease}`);
    let step = 0;
    let quorum = members <= 1; // enough members seen, once
    while (!stop.signal.aborted && (steps === 0 || step < steps)) {
      await new Promise((resolve) => setTimeout(resolve, STEP_MS));
      if (stop.signal.aborted) break;
      const s = await settled(client, member);
      quorum ||= s.members >= members;
      if (s.atRest && quorum) {
        step++;
        const owned = [...member.owned()].sort((a, b) => a[0] - b[0]).map(([p, t]) => `${p}=${t}`).join(',');
        console.log(`step ${step} owns ${owned}`); // the work: each write carries its partition's token
      }
    }
    await member.leave(); // revokes every partition, leaves the group and revokes the lease
    if (lost !== undefined) {
      console.log(`lost ${group}: ${lost}`);
      return 1;
    }
    console.log(`left ${group} at=${Date.now()}`);
    return 0;
  } finally {
    client.close();
  }
}

const args = process.argv.slice(2);
const option = (flag: string, fallback: number): number => {
  const i = args.indexOf(flag);
  return i < 0 ? fallback : Number(args.splice(i, 2)[1]);
};
const partitions = option('--partitions', 4);
const members = option('--members', 1);
const [endpoints, group, name, steps] = args;
if (!endpoints || !group || !name || !(partitions > 0) || !(members > 0) || !(Number(steps ?? 0) >= 0)) {
  console.error('usage: group-worker ENDPOINTS GROUP MEMBER [STEPS] [--partitions N] [--members M]');
  process.exit(2);
}
main(endpoints, group, name, Number(steps ?? 0), partitions, members).then((code) => process.exit(code), (e) => {
  console.error(`error: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
});
