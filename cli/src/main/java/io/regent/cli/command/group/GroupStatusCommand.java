package io.regent.cli.command.group;

import io.regent.api.v1.GroupMemberInfo;
import io.regent.api.v1.GroupStatusResponse;
import io.regent.api.v1.PartitionOwner;
import io.regent.cli.command.ClientOptions;
import io.regent.cli.output.ExitCodes;
import io.regent.cli.output.Json;
import io.regent.client.GroupClient;
import io.regent.client.RegentClient;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code regent group status GROUP}: the whole assignment, read linearizably. */
@Command(name = "status", mixinStandardHelpOptions = true,
    description = {"Prints the members and every partition's owner and token (linearizable read).",
        "simple: 'group G partitions=P members=a,b index=I', then 'PARTITION OWNER token=T' per partition "
            + "(owner '-' when free; 'next=M' when it is moving to M). json: one object with \"group\", "
            + "\"index\", \"members\" and \"partitions\": [{\"partition\":0,\"owner\":\"m1\",\"token\":412}, ...].",
        "Exit 3 when the group does not exist."})
public final class GroupStatusCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Mixin
  ClientOptions client;

  @Parameters(index = "0", paramLabel = "GROUP", description = "group name")
  String group;

  @Option(names = "--serializable", description = "read this node's state without a leadership confirmation")
  boolean serializable;

  @Override
  public Integer call() {
    try (RegentClient c = client.connect()) {
      GroupStatusResponse s = new GroupClient(c).status(group, serializable);
      spec.commandLine().getOut().println(client.json() ? json(s) : simple(s));
      return ExitCodes.OK;
    }
  }

  static String json(GroupStatusResponse s) {
    List<Json> members = new ArrayList<>();
    for (GroupMemberInfo m : s.getMembersList()) {
      members.add(Json.obj().put("member", m.getMember()).put("lease", m.getLease()));
    }
    List<Json> partitions = new ArrayList<>();
    for (PartitionOwner o : s.getOwnersList()) {
      Json j = Json.obj().put("partition", o.getPartition()).put("owner", o.getOwner().isEmpty() ? null : o.getOwner())
          .put("token", o.getOwner().isEmpty() ? null : o.getToken());
      if (!o.getNext().isEmpty()) {
        j.put("next", o.getNext());
      }
      partitions.add(j);
    }
    return Json.obj().put("group", s.getGroup()).put("index", s.getIndex()).put("members", members)
        .put("partitions", partitions).toString();
  }

  static String simple(GroupStatusResponse s) {
    StringBuilder b = new StringBuilder("group " + s.getGroup() + " partitions=" + s.getPartitions() + " members="
        + String.join(",", s.getMembersList().stream().map(GroupMemberInfo::getMember).toList()) + " index="
        + s.getIndex());
    for (PartitionOwner o : s.getOwnersList()) {
      b.append('\n').append(o.getPartition()).append(' ').append(o.getOwner().isEmpty() ? "-" : o.getOwner())
          .append(" token=").append(o.getToken());
      if (!o.getNext().isEmpty()) {
        b.append(" next=").append(o.getNext());
      }
    }
    return b.toString();
  }
}
