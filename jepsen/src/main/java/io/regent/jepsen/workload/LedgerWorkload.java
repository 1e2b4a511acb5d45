package io.regent.jepsen.workload;

import io.regent.jepsen.client.ClientPool;
import io.regent.jepsen.client.ClientProcess;
import io.regent.ledger.LedgerMode;
import io.regent.ledger.LedgerServer;
import io.regent.server.placement.Placement;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * {@code ledger}: processes campaign for one name and, while they hold it, append to a fenced ledger
 * (Regent's LMDB ledger service, started in the test's JVM on loopback, monotone mode: admits τ ≥ H)
 * with their token. History: the election ops, plus {@code :append} (value {@code [token payload]},
 * {@code :fail} when the ledger refused the token as stale) and, at the end, one {@code :read-ledger}
 * whose value is every entry as {@code [token writer payload]}. A holder checks its lease, then
 * passes its pause gate, then appends: a {@code client-pause} there is the zombie writer of a GC pause,
 * whose late append the ledger must refuse once a newer holder has written. Checked by {@code
 * LedgerChecker} (tokens never decrease, each admitted token was granted to its writer, no
 * acknowledged append lost) and, for the grants, {@code FencedRegister}.
 */
public final class LedgerWorkload implements Workload {
  /** The ledger key every holder appends to. */
  public static final String LEDGER_KEY = "jepsen-ledger";
  private final List<String> names;
  private final long ttlMs;
  private final boolean tryCampaign;
  private final LedgerServer ledger;

  /**
   * Starts the ledger server.
   *
   * @param names the contended name(s)
   * @param ttlMs the lease TTL
   * @param tryCampaign campaign with tryCampaign (see {@link Contender}) instead of a bounded blocking campaign
   * @param dataDir the ledger's LMDB directory
   */
  public LedgerWorkload(List<String> names, long ttlMs, boolean tryCampaign, Path dataDir) throws IOException {
    this.names = List.copyOf(names);
    this.ttlMs = ttlMs;
    this.tryCampaign = tryCampaign;
    this.ledger = LedgerServer.start(0, dataDir, LedgerMode.MONOTONE);
  }

  @Override
  public String name() {
    return "ledger";
  }

  @Override
  public List<String> names() {
    return names;
  }

  @Override
  public ClientPool.Session session(ClientProcess p) {
    Contender h = new Contender(p, ttlMs, tryCampaign, Placement.SINGLE);
    LedgerCalls ledgerCalls = new LedgerCalls(p, ledger.port());
    return new ClientPool.Session() {
      private int seq;

      @Override
      public long step() throws InterruptedException {
        h.checkLease();
        double x = p.random().nextDouble();
        String n = names.get(p.random().nextInt(names.size()));
        if (h.holding() && x < 0.75) {
          if (h.valid()) {
            p.gate().await();
            ledgerCalls.append(LEDGER_KEY, LEDGER_KEY, h.token(), p.name() + "-" + seq++);
          }
          return 30 + p.random().nextInt(70);
        }
        p.gate().await();
        if (h.holding()) {
          if (x < 0.9) {
            h.resign();
          } else {
            h.read(n);
          }
        } else if (x < 0.6) {
          h.campaign(n);
        } else {
          h.read(n);
        }
        return 50 + p.random().nextInt(100);
      }

      @Override
      public boolean holding() {
        return h.holding();
      }

      @Override
      public void close() {
        h.close();
        ledgerCalls.close();
      }
    };
  }

  @Override
  public void finalReads(ClientProcess p) {
    Contender h = new Contender(p, ttlMs, tryCampaign, Placement.SINGLE);
    names.forEach(h::read);
    try (LedgerCalls ledgerCalls = new LedgerCalls(p, ledger.port())) {
      ledgerCalls.read(LEDGER_KEY, LEDGER_KEY);
    }
  }

  @Override
  public void close() throws InterruptedException {
    ledger.close();
  }
}
