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
import io.regent.jepsen.client.ClientProcess;
import io.regent.jepsen.client.Errors;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * One process's calls to the fenced ledger (Regent's {@code LedgerServer}, in the test's JVM on loopback),
 * recorded as history ops: {@code :append} (value {@code [token payload]}; {@code :fail} when the ledger
 * refused the token as stale) and {@code :read-ledger} (value: every entry as {@code [token writer payload]},
 * in ledger order). An entry is stored as {@code "<writer> <payload>"}, the writer being the process's name.
 */
final class LedgerCalls implements AutoCloseable {
  private final ClientProcess p;
  private final ManagedChannel channel;
  private final LedgerGrpc.LedgerBlockingStub stub;

  /** Opens a channel to the ledger server on loopback {@code port}. */
  LedgerCalls(ClientProcess p, int port) {
    this.p = p;
    this.channel = NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
    this.stub = LedgerGrpc.newBlockingStub(channel);
  }

  /** An {@code :append} of {@code payload} with {@code token} to ledger {@code key}, recorded under {@code opKey}. */
  void append(Object opKey, String key, long token, String payload) {
    ClientProcess.Invocation inv = p.invoke("append", opKey, List.of(token, payload));
    try {
      LedgerAppendResponse r = p.call(() -> stub.append(LedgerAppendRequest.newBuilder()
          .setKey(key).setToken(token)
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

  /** A {@code :read-ledger} of ledger {@code key}, recorded under {@code opKey}. */
  void read(Object opKey, String key) {
    ClientProcess.Invocation inv = p.invoke("read-ledger", opKey, null);
    try {
      List<LedgerEntry> entries = p.call(() -> stub.read(LedgerReadRequest.newBuilder().setKey(key).build())
          .getEntriesList());
      List<Object> value = new ArrayList<>();
      for (LedgerEntry e : entries) {
        String[] wp = e.getEntry().toString(StandardCharsets.UTF_8).split(" ", 2);
        value.add(List.of(e.getToken(), wp[0], wp.length > 1 ? wp[1] : ""));
      }
      inv.ok(value);
    } catch (StatusRuntimeException e) {
      inv.fail(Errors.describe(e));
    }
  }

  @Override
  public void close() {
    channel.shutdownNow();
  }
}
