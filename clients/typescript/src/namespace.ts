import type { ObserveEvent } from './observe';
import type { LeaderKey } from './types';

/**
 * A namespace: a name prefix that a client adds to every name it sends and removes from every name it returns,
 * so that teams sharing a cluster keep apart by prefix (as the etcd3 package's namespace() or Curator's
 * usingNamespace). The caller says 'jobs', the cluster holds 'team-a/jobs'; per-name permissions
 * (docs/security.md) can grant a team its prefix. Names outside the prefix (a lease's names from another
 * namespace) come back as the cluster has them.
 */
export class Namespace {
  /** The prefix; '' for none. */
  readonly prefix: string;

  /** @throws TypeError unless `prefix` is a string. */
  constructor(prefix: string = '') {
    if (typeof prefix !== 'string') throw new TypeError(`namespace must be a string, e.g. 'team-a/', not ${typeof prefix}`);
    this.prefix = prefix;
  }

  /** The name as the cluster knows it. */
  name(name: string): string {
    return this.prefix + name;
  }

  /** The caller's name for a name from the cluster. */
  nameOut(name: string): string {
    return this.prefix && name.startsWith(this.prefix) ? name.slice(this.prefix.length) : name;
  }

  /** A copy of the caller's key with the cluster's name, to send back (resign, proclaim, unlock...). */
  keyIn(k: LeaderKey): LeaderKey {
    return { ...k, name: this.name(k.name) };
  }

  /** A copy of a key from the cluster with the caller's name. */
  keyOut(k: LeaderKey): LeaderKey {
    return { ...k, name: this.nameOut(k.name) };
  }

  /** The events of `events` with the caller's names (ending it ends `events`). */
  async *events(events: AsyncGenerator<ObserveEvent>): AsyncGenerator<ObserveEvent> {
    for await (const e of events) {
      yield { ...e, name: this.nameOut(e.name), leader: e.leader && this.keyOut(e.leader) };
    }
  }
}
