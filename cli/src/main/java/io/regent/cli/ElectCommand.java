package io.regent.cli;

import com.google.protobuf.ByteString;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.regent.api.v1.LeaderKey;
import io.regent.client.LeaseKeeper;
import io.regent.client.RegentClient;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code regent elect NAME VALUE}: campaign, print the grant, hold it until signalled or lost. */
@Command(name = "elect", mixinStandardHelpOptions = true,
    description = {"Campaigns for NAME and holds the leadership until interrupted.",
        "Campaigns for NAME with VALUE on a kept-alive lease and blocks until elected; then prints the "
        + "grant (elected NAME VALUE token=T lease=L) and holds it until SIGINT/SIGTERM (resigns, exit 0) or "
        + "until it can no longer vouch for its lease (prints 'lost NAME: reason' on stderr, exit 1).",
        "The token is the fencing token: attach it to every write at the protected resource.",
        "elect --listen NAME is observe NAME."})
public final class ElectCommand implements Callable<Integer> {
  /** How long releasing the name may take on exit before the lease is left to expire on its own. */
  static final long RELEASE_TIMEOUT_MS = 5_000;

  @Spec
  CommandSpec spec;

  @Mixin
  ClientOptions client;

  @Parameters(index = "0", paramLabel = "NAME", description = "election name")
  String name;

  @Parameters(index = "1", arity = "0..1", paramLabel = "VALUE", description = "value to publish (e.g. this node's address)")
  String value;

  @Option(names = "--ttl", paramLabel = "DURATION", defaultValue = "10s", converter = DurationConverter.class,
      description = "lease TTL, e.g. 3s (default: ${DEFAULT-VALUE})")
  Duration ttl;

  @Option(names = "--listen", description = "observe NAME instead of campaigning")
  boolean listen;

  @Override
  public Integer call() throws Exception {
    if (listen) {
      if (value != null) {
        throw new ParameterException(spec.commandLine(), "--listen takes only NAME");
      }
      return ObserveCommand.observe(client, name, 0, spec.commandLine().getOut());
    }
    if (value == null) {
      throw new ParameterException(spec.commandLine(), "missing VALUE (or use --listen NAME)");
    }
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    CountDownLatch done = new CountDownLatch(1);
    AtomicReference<String> lost = new AtomicReference<>();
    AtomicBoolean signalled = new AtomicBoolean();
    AtomicBoolean campaigning = new AtomicBoolean(true);
    Thread self = Thread.currentThread();
    Signals.onTermination(() -> {
      signalled.set(true);
      done.countDown();
      if (campaigning.get()) {
        self.interrupt(); // cancels the blocking campaign call; the server withdraws the candidacy
      }
    });
    try (RegentClient c = client.connect()) {
      LeaseKeeper keeper = null;
      LeaderKey key = null;
      try {
        keeper = LeaseKeeper.grant(c, ttl.toMillis(), reason -> {
          lost.set(reason);
          done.countDown();
          if (campaigning.get()) {
            self.interrupt(); // stop waiting: a candidate without a vouched-for lease must not become leader
          }
        });
        key = campaign(c, keeper, done);
      } catch (StatusRuntimeException e) {
        if (!signalled.get() && lost.get() == null) {
          campaigning.set(false);
          Thread.interrupted();
          release(c, keeper, null);
          throw e;
        }
      } finally {
        campaigning.set(false);
        Thread.interrupted(); // a signal or step-down may have interrupted us; the latch records it
      }
      if (key != null && lost.get() == null && !signalled.get()) {
        out.println(Format.grant(key, client.json()));
        out.flush();
        while (done.getCount() > 0) {
          try {
            done.await();
          } catch (InterruptedException e) {
            // raced with the end of the campaign: the latch is counted down as well
          }
        }
      }
      boolean wasLost = lost.get() != null && !signalled.get();
      if (wasLost) {
        err.println("lost " + name + ": " + lost.get());
        err.flush();
      }
      release(c, keeper, key);
      return wasLost ? ExitCodes.ERROR : ExitCodes.OK;
    }
  }

  /** Campaigns, retrying while no node is reachable or there is no quorum, as long as the lease is vouched for. */
  private LeaderKey campaign(RegentClient c, LeaseKeeper keeper, CountDownLatch done) {
    ByteString v = ByteString.copyFromUtf8(value);
    while (true) {
      try {
        return c.campaign(name, keeper.leaseId(), v);
      } catch (StatusRuntimeException e) {
        if (e.getStatus().getCode() != Status.Code.UNAVAILABLE || !keeper.isValid() || done.getCount() == 0) {
          throw e;
        }
        try {
          Thread.sleep(200); // campaign is idempotent per (name, lease): retrying keeps the place in line
        } catch (InterruptedException ie) {
          throw Status.CANCELLED.withDescription("interrupted").asRuntimeException();
        }
      }
    }
  }

  /** Resigns (when elected) and revokes the lease, giving up after {@link #RELEASE_TIMEOUT_MS}. */
  private static void release(RegentClient c, LeaseKeeper keeper, LeaderKey key) throws InterruptedException {
    if (keeper == null) {
      return;
    }
    Thread t = new Thread(() -> {
      try {
        if (key != null) {
          c.resign(key);
        }
      } catch (StatusRuntimeException e) {
        // not the holder any more, or no quorum: revoking the lease frees the name either way
      } finally {
        keeper.close();
      }
    }, "regent-release");
    t.setDaemon(true);
    t.start();
    t.join(RELEASE_TIMEOUT_MS);
  }
}
