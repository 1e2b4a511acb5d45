/**
 * Full-jitter backoff: the pause after the n-th consecutive failure (n from 0) is uniform over
 * [0, min(capMs, baseMs * 2^n)]. After a leader change every client's calls fail at once; without jitter they
 * would all retry at the same instants against the new leader. (The Java client's RetryPolicy uses equal jitter
 * between its passes over the endpoints; docs/api.md, "Attempts".)
 *
 * @param failures consecutive failures so far, 0 for the first
 * @param baseMs the cap after the first failure, ms, not negative
 * @param capMs the largest cap, ms, not negative
 * @param random uniform over [0, 1); Math.random by default
 * @throws RangeError for a negative argument
 */
export function fullJitter(failures: number, baseMs: number, capMs: number, random: () => number = Math.random): number {
  if (failures < 0 || baseMs < 0 || capMs < 0) throw new RangeError('failures, baseMs and capMs must not be negative');
  return random() * Math.min(capMs, baseMs * 2 ** Math.min(failures, 32));
}
