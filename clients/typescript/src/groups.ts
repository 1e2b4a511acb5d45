import { requestId } from './calls';
import { DEFAULT_TTL_MS, Elections } from './elections';
import { Ownership } from './ownership';
import type { GroupOptions } from './ownership';
import type { CallOptions, GroupStatus } from './types';
import { checkMember, checkMs, checkName, checkPartitions } from './validate';

/** A RegentClient's ownership groups (docs/ownership.md): joinGroup(), and the Group RPCs by hand. */
export class Groups extends Elections {
  /**
   * Joins `group` as `member` (1..128 bytes) with a new lease of opts.ttl ms (default 10 000) granted in the join's
   * own entry and kept alive, creating the group with opts.partitions (1..65 536; 0, the default, joins an
   * existing one), and follows the member's assignment: resolves to an Ownership, whose events tell each
   * partition assigned with its fencing token and each revoked (ownership.ts). Rejects with Group.Join's errors
   * (docs/ownership.md, "API"): FAILED_PRECONDITION for another partition count than the group's or the member
   * id held by another lease, NOT_FOUND for a new group with partitions 0, INVALID_ARGUMENT for a bad name or TTL.
   */
  async joinGroup(group: string, member: string, opts: GroupOptions = {}): Promise<Ownership> {
    if (typeof opts !== 'object' || opts === null) throw new TypeError('options must be an object, e.g. { partitions: 16 }');
    checkName(group, 'group');
    checkMember(member);
    checkPartitions(opts.partitions ?? 0);
    checkMs(opts.ttl ?? DEFAULT_TTL_MS, 'ttl');
    return Ownership.join(this, group, member, { ...opts, ttl: opts.ttl ?? DEFAULT_TTL_MS });
  }

  /**
   * Group.Join by hand: adds `member` with a new lease of opts.ttl ms granted in the same entry; resolves to the
   * lease and the entry's index. Re-sent with one request id: a join that applied is answered, not joined twice.
   */
  async groupJoin(group: string, member: string, opts: CallOptions & { ttl: number; partitions: number })
    : Promise<{ lease: number; index: number }> {
    const req = { group: this.ns.name(checkName(group, 'group')), member: checkMember(member),
      ttl_ms: checkMs(opts.ttl, 'ttl'), partitions: checkPartitions(opts.partitions), request_id: requestId() };
    const r = await this.call('Group', 'Join', req, opts, { toLeader: true });
    return { lease: r.lease, index: r.index };
  }

  /** Group.Leave: the member stopped; its partitions move on at once. Resolves to the entry's index. NOT_FOUND. */
  async groupLeave(group: string, member: string, lease: number, opts: CallOptions = {}): Promise<number> {
    const req = { group: this.ns.name(group), member, lease, request_id: requestId() };
    return (await this.call('Group', 'Leave', req, opts, { toLeader: true })).index;
  }

  /**
   * Group.Release: gives up partitions (partition to the token it was granted with), all or nothing; resolves to
   * the entry's index. FAILED_PRECONDITION for a stale token or a partition still assigned to the caller.
   */
  async groupRelease(group: string, tokens: ReadonlyMap<number, number>, opts: CallOptions = {}): Promise<number> {
    const partitions = [...tokens].sort((a, b) => a[0] - b[0]).map(([partition, token]) => ({ partition, token }));
    const req = { group: this.ns.name(group), partitions, request_id: requestId() };
    return (await this.call('Group', 'Release', req, opts, { toLeader: true })).index;
  }

  /**
   * A group's whole assignment: each partition's owner and token (and `next` while a move waits for its
   * release), read linearizably (serializable: the answering node's own state). NOT_FOUND for no such group.
   */
  async groupStatus(group: string, opts: CallOptions & { serializable?: boolean } = {}): Promise<GroupStatus> {
    checkName(group, 'group');
    const r = await this.call('Group', 'Status', { group: this.ns.name(group), serializable: opts.serializable ?? false },
      opts, { toLeader: !opts.serializable });
    return { group, partitions: r.partitions, index: r.index,
      members: r.members.map((m) => ({ member: m.member, lease: m.lease, joinedIndex: m.joined_index })),
      owners: r.owners.map((o) => ({ partition: o.partition, owner: o.owner, token: o.token, next: o.next })) };
  }

  /** @internal the name as the cluster knows it (the namespace's prefix first) */
  clusterName(name: string): string {
    return this.ns.name(name);
  }
}
