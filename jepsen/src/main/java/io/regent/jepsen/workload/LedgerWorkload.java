package io.regent.jepsen.workload;

import com.google.protobuf.ByteString;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.regent.api.v1.LedgerAppendRequest;
import io.regent.api.v1.LedgerAppendResponse;
import io.regent.api.v1.LedgerEntry;
import io.regent.api.v1.LedgerGrpc;
import io.regent.api.v1.LedgerReadRequest;
import io.regent.jepsen.client.ClientPool;
import io.regent.jepsen.client.ClientProcess;
import io.regent.jepsen.client.Errors;
import io.regent.server.ledger.LedgerMode;
import io.regent.server.ledger.LedgerServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

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

  private ManagedChannel channel() {
    return NettyChannelBuilder.forAddress("127.0.0.1", ledger.port()).usePlaintext().build();
  }

  @Override
  public ClientPool.Session session(ClientProcess p) {
    Contender h = new Contender(p, ttlMs, tryCampaign);
    ManagedChannel ch = channel();
    LedgerGrpc.LedgerBlockingStub stub = LedgerGrpc.newBlockingStub(ch);
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
            append(h.token(), p.name() + "-" + seq++);
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

      private void append(long token, String payload) {
        ClientProcess.Invocation inv = p.invoke("append", LEDGER_KEY, List.of(token, payload));
        try {
          LedgerAppendResponse r = p.call(() -> stub.append(LedgerAppendRequest.newBuilder()
              .setKey(LEDGER_KEY).setToken(token)
              .setEntry(ByteString.copyFromUtf8(p.name() + " " + payload)).build()));
          inv.ok(List.of(token, payload), Map.of("position", r.getPosition()));
        } catch (StatusRuntimeException e) {
          if (Errors.definiteFailure(e)) {
            inv.fail(Errors.describe(e));
          } else {
            inv.info(Errors.describe(e));
          }
        }
      }

      @Override
      public boolean holding() {
        return h.holding();
      }

      @Override
      public void close() {
        h.close();
        ch.shutdownNow();
      }
    };
  }

  @Override
  public void finalReads(ClientProcess p) {
    Contender h = new Contender(p, ttlMs, tryCampaign);
    names.forEach(h::read);
    ManagedChannel ch = channel();
    try {
      ClientProcess.Invocation inv = p.invoke("read-ledger", LEDGER_KEY, null);
      try {
        List<LedgerEntry> entries = p.call(() -> LedgerGrpc.newBlockingStub(ch)
            .read(LedgerReadRequest.newBuilder().setKey(LEDGER_KEY).build()).getEntriesList());
        List<Object> value = new ArrayList<>();
        for (LedgerEntry e : entries) {
          String[] wp = e.getEntry().toString(StandardCharsets.UTF_8).split(" ", 2);
          value.add(List.of(e.getToken(), wp[0], wp.length > 1 ? wp[1] : ""));
        }
        inv.ok(value);
      } catch (StatusRuntimeException e) {
        inv.fail(Errors.describe(e));
      }
    } finally {
      ch.shutdownNow();
    }
  }

  @Override
  public void close() throws InterruptedException {
    ledger.close();
  }
}
