package io.regent.cli.holder;

import com.google.protobuf.ByteString;
import io.grpc.StatusRuntimeException;
import io.regent.api.v1.LeaderKey;
import io.regent.cli.output.ExitCodes;
import io.regent.cli.output.Format;
import io.regent.client.LeaseKeeper;
import io.regent.client.RegentClient;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * {@code regent elect --all a,b,c VALUE}: takes every name or none in one entry (CampaignAll), all with one
 * fencing token; prints one grant line per name; holds them until SIGINT/SIGTERM (resigns them all, exit 0)
 * or until the lease is lost ({@code lost a,b,c: reason} on stderr, exit 1). While the lease is in doubt it is
 * suspended ({@code suspended a,b,c: reason}, then {@code resumed a,b,c token=T lease=L} after a renewal in
 * time; docs/architecture.md §3.6), unless {@code --no-suspend}.
 */
public final class ElectAll {
  /**
   * One run.
   *
   * @param names the names, all taken or none
   * @param value the value published for each
   * @param ttlMs the lease TTL, ms
   * @param json grant lines as JSON
   * @param suspension whether and how long the holder is suspended before the names are lost
   */
  public record Run(List<String> names, String value, long ttlMs, boolean json, SuspendOptions suspension) {
  }

  private ElectAll() {
  }

  /** Campaigns, prints the grants, holds; {@code keeperOptions} are the lease keeper's (a pause hook in tests). */
  public static int run(RegentClient c, Run run, LeaseKeeper.Options keeperOptions, PrintWriter out, PrintWriter err)
      throws InterruptedException {
    String all = String.join(",", run.names());
    CountDownLatch ended = new CountDownLatch(1);
    AtomicReference<String> lost = new AtomicReference<>();
    Thread campaigner = Thread.currentThread();
    AtomicBoolean campaigning = new AtomicBoolean(true);
    Runnable wake = () -> {
      ended.countDown();
      synchronized (campaigning) {
        if (campaigning.get()) {
          campaigner.interrupt(); // cancels the campaign in progress: the server withdraws the candidacy
        }
      }
    };
    Signals.onTermination(wake);
    AtomicReference<List<LeaderKey>> held = new AtomicReference<>(List.of());
    AtomicLong leaseId = new AtomicLong();
    LeaseKeeper.Options options = run.suspension().apply(keeperOptions,
        reason -> say(ended, err, "suspended " + all + ": " + reason),
        () -> say(ended, err, "resumed " + all + held.get().stream().findFirst().map(k -> " token=" + k.getToken())
            .orElse("") + " lease=" + leaseId.get()));
    // the lease in the names' cell (docs/architecture.md §14): they must share one, or CampaignAll is refused
    LeaseKeeper keeper = LeaseKeeper.grant(c, run.ttlMs(), run.names().get(0), reason -> {
      lost.compareAndSet(null, reason);
      wake.run();
    }, options);
    leaseId.set(keeper.leaseId());
    List<LeaderKey> keys = List.of();
    try {
      try {
        keys = c.elections().campaignAll(run.names(), keeper.leaseId(), ByteString.copyFromUtf8(run.value()));
        held.set(keys);
      } finally {
        synchronized (campaigning) {
          campaigning.set(false);
          Thread.interrupted(); // an interrupt meant for the campaign; the latch records why
        }
      }
      keys.forEach(k -> out.println(Format.grant(k, run.json())));
      out.flush();
      ended.await();
    } catch (StatusRuntimeException e) {
      if (ended.getCount() > 0) {
        throw e;
      }
    } finally {
      for (LeaderKey k : keys) {
        try {
          c.elections().resign(k);
        } catch (StatusRuntimeException e) {
          // lost already, or no quorum: revoking the lease below frees the name either way
        }
      }
      keeper.close();
    }
    if (lost.get() != null) {
      err.println("lost " + all + ": " + lost.get());
      err.flush();
      return ExitCodes.ERROR;
    }
    return ExitCodes.OK;
  }

  /** One suspension line on stderr, unless the run has ended. */
  private static void say(CountDownLatch ended, PrintWriter err, String line) {
    if (ended.getCount() > 0) {
      err.println(line);
      err.flush();
    }
  }
}
