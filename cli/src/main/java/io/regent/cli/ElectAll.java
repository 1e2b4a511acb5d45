package io.regent.cli;

import com.google.protobuf.ByteString;
import io.grpc.StatusRuntimeException;
import io.regent.api.v1.LeaderKey;
import io.regent.client.LeaseKeeper;
import io.regent.client.RegentClient;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * {@code regent elect --all a,b,c VALUE}: takes every name or none in one entry (CampaignAll), all with one
 * fencing token; prints one grant line per name; holds them until SIGINT/SIGTERM (resigns them all, exit 0)
 * or until the lease can no longer be vouched for ({@code lost a,b,c: reason} on stderr, exit 1).
 */
final class ElectAll {
  private ElectAll() {
  }

  static int run(RegentClient c, List<String> names, String value, long ttlMs, boolean json, PrintWriter out,
                 PrintWriter err) throws InterruptedException {
    String all = String.join(",", names);
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
    LeaseKeeper keeper = LeaseKeeper.grant(c, ttlMs, reason -> {
      lost.compareAndSet(null, reason);
      wake.run();
    });
    List<LeaderKey> keys = List.of();
    try {
      try {
        keys = c.campaignAll(names, keeper.leaseId(), ByteString.copyFromUtf8(value));
      } finally {
        synchronized (campaigning) {
          campaigning.set(false);
          Thread.interrupted(); // an interrupt meant for the campaign; the latch records why
        }
      }
      keys.forEach(k -> out.println(Format.grant(k, json)));
      out.flush();
      ended.await();
    } catch (StatusRuntimeException e) {
      if (ended.getCount() > 0) {
        throw e;
      }
    } finally {
      for (LeaderKey k : keys) {
        try {
          c.resign(k);
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
}
