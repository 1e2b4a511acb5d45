/**
 * Fencing at the resource (docs/architecture.md §5): the check that makes a deposed leader harmless.
 *
 * <p>An election is only a hint; a client that was paused (GC, SIGSTOP) may still believe it holds a name
 * after its lease expired and another client was elected. The resource therefore remembers, per key, the
 * highest fencing token H it has admitted and refuses writes tagged with an older token. Regent's tokens
 * are Raft log indexes, so they are at least 1 and increase with every grant. Sources: Kleppmann, "How to
 * do distributed locking" (2016), fencing tokens; Burrows, "The Chubby lock service" (OSDI 2006),
 * sequencers.
 *
 * <p>{@link io.regent.fencing.FencingGuard} over a {@link io.regent.fencing.FenceStore} (e.g.
 * {@link io.regent.fencing.InMemoryFenceStore}) guards writes made in the same process;
 * {@link io.regent.fencing.JdbcFence} guards writes to a SQL database inside the same transaction. Both also
 * make a write idempotent ({@code write} with an idempotency key and a request hash; rules in
 * {@link io.regent.fencing.IdempotencyKeys}, after Stripe's idempotency keys): a retry runs the effect once and
 * gets the first result, the key reused for another request is refused
 * ({@link io.regent.fencing.IdempotencyKeyReusedException}).
 */
package io.regent.fencing;
