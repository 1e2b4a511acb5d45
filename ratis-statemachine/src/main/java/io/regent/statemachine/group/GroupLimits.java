package io.regent.statemachine.group;

import io.regent.statemachine.limits.Limits;
import java.nio.charset.StandardCharsets;

/** Limits of ownership groups (docs/ownership.md), enforced at the API and again, deterministically, at apply. */
public final class GroupLimits {
  /** Largest partition count of a group. */
  public static final int MAX_PARTITIONS = 65_536;
  /** Most members one group may have: keeps a group record (members and partition arrays) to about 2 MB. */
  public static final int MAX_MEMBERS = 4_096;
  /** Longest member id, in UTF-8 bytes. */
  public static final int MAX_MEMBER_ID_BYTES = 128;

  private GroupLimits() {
  }

  /** An error message when {@code group} is not a valid group name (as a name: 1 byte to 1 KiB), else null. */
  public static String checkGroup(String group) {
    String bad = Limits.checkName(group);
    return bad == null ? null : "group " + bad;
  }

  /** An error message when {@code id} is empty or longer than {@link #MAX_MEMBER_ID_BYTES}, else null. */
  public static String checkMemberId(String id) {
    int bytes = id == null ? 0 : id.getBytes(StandardCharsets.UTF_8).length;
    return bytes == 0 || bytes > MAX_MEMBER_ID_BYTES
        ? "member id must be 1.." + MAX_MEMBER_ID_BYTES + " bytes of UTF-8, got " + bytes : null;
  }

  /**
   * An error message when {@code partitions} is not a partition count for a join: 1..65 536, or 0 to join an
   * existing group whatever its count.
   */
  public static String checkPartitions(int partitions) {
    return partitions < 0 || partitions > MAX_PARTITIONS
        ? "partitions " + partitions + " outside 1.." + MAX_PARTITIONS + " (0: the existing group's count)" : null;
  }
}
