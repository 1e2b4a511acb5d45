package io.regent.cli.command;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.regent.api.v1.Member;
import io.regent.api.v1.MemberListResponse;
import io.regent.cli.output.ExitCodes;
import io.regent.cli.output.Format;
import io.regent.cli.output.Json;
import io.regent.client.MemberArgs;
import io.regent.client.RegentClient;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.Function;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code regent member list|add|promote|remove|transfer-leadership}: the cluster's membership (docs/operations.md). */
@Command(name = "member", mixinStandardHelpOptions = true,
    description = {"Lists and changes the cluster's members (Raft set-configuration).",
        "A new member joins as a learner (it receives the log, by snapshot if need be, but does not vote) and is "
            + "promoted to voter once caught up; 'regent server --join' does both. Exits 3 for an unknown member, "
            + "1 when the cluster refuses the change (nothing changed)."},
    subcommands = {MemberCommand.ListMembers.class, MemberAddCommand.class, MemberCommand.Promote.class,
        MemberCommand.Remove.class, MemberCommand.TransferLeadership.class})
public final class MemberCommand implements Runnable {
  @Spec
  CommandSpec spec;

  @Override
  public void run() {
    throw new ParameterException(spec.commandLine(),
        "missing command: list, add, promote, remove or transfer-leadership");
  }

  /**
   * Runs a membership call. The cluster's FAILED_PRECONDITION here means "refused in this state" (last voter,
   * promoting a voter), not a stale fencing token, so it exits 1 rather than 4.
   */
  static <T> T refusalsAreErrors(RegentClient client, Function<RegentClient, T> call) {
    try {
      return call.apply(client);
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() == Status.Code.FAILED_PRECONDITION) {
        throw new Refused(ExitCodes.message(e));
      }
      throw e;
    }
  }

  /** Prints the members after a change, one per line. */
  static void print(CommandSpec spec, List<Member> members, String leader, boolean json) {
    members.forEach(m -> spec.commandLine().getOut().println(Format.member(m, leader, json)));
  }

  /** Checks a member id's form before any call: a usage error (exit 2) when malformed. */
  static String checkedId(CommandSpec spec, String id) {
    if (!MemberArgs.ID.matcher(id).matches()) {
      throw new ParameterException(spec.commandLine(),
          "invalid member id '" + id + "': expected 1-64 letters, digits, '.', '_' or '-'");
    }
    return id;
  }

  /** A change the cluster refused in its current state (exit 1). */
  static final class Refused extends RuntimeException {
    Refused(String message) {
      super(message);
    }
  }

  /** {@code member list}. */
  @Command(name = "list", mixinStandardHelpOptions = true,
      description = {"Prints every member, one per line: ID voter|learner raft=HOST:PORT api=HOST:PORT [leader].",
          "-w json: one object per line with id, role, raft, api, leader."})
  static final class ListMembers implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    ClientOptions client;

    @Override
    public Integer call() {
      try (RegentClient c = client.connect()) {
        MemberListResponse r = c.cluster().memberList();
        print(spec, r.getMembersList(), r.getLeader(), client.json());
        return ExitCodes.OK;
      }
    }
  }

  /**
   * A change to one member named by its id, printing the members afterwards: what {@code promote} and
   * {@code remove} share. Exit 2 for a malformed id, 3 for an unknown member, 1 when refused.
   */
  abstract static class MemberChange implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    ClientOptions client;

    @Parameters(index = "0", paramLabel = "ID", description = "the member's id")
    String id;

    /** The membership call; returns the members after it. */
    abstract List<Member> change(RegentClient c, String id);

    @Override
    public Integer call() {
      checkedId(spec, id);
      try (RegentClient c = client.connect()) {
        print(spec, refusalsAreErrors(c, x -> change(x, id)), "", client.json());
        return ExitCodes.OK;
      }
    }
  }

  /** {@code member promote ID}. */
  @Command(name = "promote", mixinStandardHelpOptions = true,
      description = {"Makes a learner a voter, then prints the members.",
          "Promote a learner once it has caught up ('regent server --join' waits for that itself)."})
  static final class Promote extends MemberChange {
    @Override
    List<Member> change(RegentClient c, String id) {
      return c.cluster().memberPromote(id);
    }
  }

  /** {@code member remove ID}. */
  @Command(name = "remove", mixinStandardHelpOptions = true,
      description = {"Removes a member (voter or learner), then prints the members.",
          "The removed node leaves the group; stop its process. The last voter cannot be removed."})
  static final class Remove extends MemberChange {
    @Override
    List<Member> change(RegentClient c, String id) {
      return c.cluster().memberRemove(id);
    }
  }

  /** {@code member transfer-leadership --to ID}. */
  @Command(name = "transfer-leadership", mixinStandardHelpOptions = true,
      description = {"Moves Raft leadership to a voter and prints 'leader ID' once it leads.",
          "E.g. before stopping the leader's machine for maintenance."})
  static final class TransferLeadership implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    ClientOptions client;

    @Option(names = "--to", paramLabel = "ID", required = true, description = "the voter that is to lead")
    String to;

    @Override
    public Integer call() {
      checkedId(spec, to);
      try (RegentClient c = client.connect()) {
        String leader = refusalsAreErrors(c, x -> x.cluster().transferLeadership(to));
        spec.commandLine().getOut().println(client.json()
            ? Json.obj().put("leader", leader).toString() : "leader " + leader);
        return ExitCodes.OK;
      }
    }
  }
}
