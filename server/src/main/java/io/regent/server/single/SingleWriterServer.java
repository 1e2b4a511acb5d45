package io.regent.server.single;

import io.regent.api.v1.Member;
import io.regent.api.v1.StatusResponse;
import io.regent.server.config.ServerConfig;
import io.regent.server.api.ApiServer;
import io.regent.server.concurrent.NodeExecutors;
import io.regent.server.lease.Lessor;
import io.regent.server.confirm.Confirmer;
import io.regent.server.storage.DataDir;
import io.regent.statemachine.event.EventHub;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code regent server --single-writer}: one process, no Raft, the same public API and tokens (docs/architecture.md §6).
 * It is the baseline the consensus cluster is measured against: cheaper per grant, unavailable while down.
 */
public final class SingleWriterServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(SingleWriterServer.class);
  /** The node id Status reports. */
  public static final String NODE_ID = "single-writer";

  private final NodeExecutors executors = new NodeExecutors();
  private final Lessor lessor;
  private final SingleWriterLog log;
  private final ApiServer api;

  private SingleWriterServer(String apiHost, int apiPort, Path dataDir, boolean unsafeSkipRelease) {
    this.lessor = new Lessor(System::nanoTime, executors.timers(), 50, 500);
    this.log = new SingleWriterLog(new DataDir(dataDir).lmdb(), lessor, new EventHub(10_000), unsafeSkipRelease);
    lessor.setProposer(log);
    String address = apiHost + ":" + apiPort;
    this.api = new ApiServer(new InetSocketAddress(apiHost, apiPort), () -> status(address), log, log,
        new Confirmer(log), minTtlMs(), false, false, executors);
  }

  /**
   * Starts a single-writer node whose state lives in {@code dataDir/lmdb}.
   *
   * @param apiPort port of the public gRPC API (0 picks a free one)
   */
  public static SingleWriterServer start(String apiHost, int apiPort, Path dataDir) throws IOException {
    return start(apiHost, apiPort, dataDir, false);
  }

  /**
   * As above; {@code unsafeSkipRelease} is TESTS ONLY, the negative control of Jepsen's ownership workload
   * ({@code regent server --single-writer --unsafe-skip-release}): ownership groups skip the release rule.
   */
  public static SingleWriterServer start(String apiHost, int apiPort, Path dataDir, boolean unsafeSkipRelease)
      throws IOException {
    SingleWriterServer s = new SingleWriterServer(apiHost, apiPort, dataDir, unsafeSkipRelease);
    s.api.start();
    LOG.info("single writer serving the API on {}:{} (no Raft; every command fsynced before its reply)", apiHost,
        s.api.port());
    return s;
  }

  /** The same minimum TTL as a cluster with default election timeouts, so clients see one contract. */
  static long minTtlMs() {
    return ServerConfig.DEFAULT_ELECTION_MAX_MS * 3 / 2;
  }

  private StatusResponse status(String address) {
    long applied = log.appliedIndex();
    return StatusResponse.newBuilder().setNode(NODE_ID).setLeader(NODE_ID).setTerm(SingleWriterLog.TERM)
        .setCommitIndex(applied).setAppliedIndex(applied).setRole("SINGLE_WRITER")
        .addMembers(Member.newBuilder().setId(NODE_ID).setAddress(address)).build();
  }

  /** Port of the public gRPC API. */
  public int apiPort() {
    return api.port();
  }

  @Override
  public void close() throws Exception {
    api.close();
    lessor.close();
    log.close();
    executors.close();
  }
}
