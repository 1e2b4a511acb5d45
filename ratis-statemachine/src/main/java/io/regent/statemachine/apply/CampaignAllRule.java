package io.regent.statemachine.apply;

import static io.regent.statemachine.apply.Results.error;

import io.regent.statemachine.event.ChangeEvent;
import io.regent.statemachine.event.ChangeEvent.Kind;
import io.regent.statemachine.limits.Limits;
import io.regent.statemachine.proto.CampaignAll;
import io.regent.statemachine.proto.Candidate;
import io.regent.statemachine.proto.Code;
import io.regent.statemachine.proto.Holder;
import io.regent.statemachine.proto.LeaseRecord;
import io.regent.statemachine.proto.NameRecord;
import io.regent.statemachine.proto.Result;
import io.regent.statemachine.store.StateTxn;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * CampaignAll at apply (docs/ownership.md): one lease takes several names in one entry, all or none, each
 * with that entry's index as its token. When any of them is held, the lease queues once, as one candidate
 * waiting in the FIFO of every one of its names ({@code Candidate.all_names}); it takes them together in the
 * apply in which it is first in line for all of them and all are free. Meanwhile a free name whose first
 * candidate is such a candidate stays unowned (reserved for it), so a stream of single-name campaigns cannot
 * starve it.
 *
 * <p>Not thread-safe: one instance per rule applied, on the apply thread.
 */
final class CampaignAllRule {
  /** Most names one CampaignAll may take. */
  static final int MAX_NAMES = 64;

  private final StateTxn txn;
  private final long index;
  private final Effects effects;

  CampaignAllRule(ApplyContext at) {
    this.txn = at.txn();
    this.index = at.index();
    this.effects = at.effects();
  }

  /**
   * Applies a CampaignAll entry: its lease takes all its names now when all are unused, else queues once for
   * all of them; a retry keeps what the first try got. {@link Code#FAILED_PRECONDITION} when the lease already
   * holds or waits for one of the names on its own.
   */
  Result.Builder campaign(CampaignAll c) {
    TreeSet<String> names = new TreeSet<>(c.getNamesList());
    String bad = c.getNamesCount() == 0 || c.getNamesCount() > MAX_NAMES || names.size() != c.getNamesCount()
        ? "CampaignAll takes 1.." + MAX_NAMES + " distinct names, got " + c.getNamesCount() : null;
    for (String n : names) {
      bad = bad != null ? bad : Limits.checkName(n);
    }
    bad = bad != null ? bad : Limits.checkValue(c.getValue().size());
    if (bad != null) {
      return error(Code.INVALID_ARGUMENT, bad);
    }
    LeaseRecord lease = txn.lease(c.getLeaseId());
    if (lease == null) {
      return error(Code.NOT_FOUND, "lease " + c.getLeaseId() + " not found");
    }
    List<NameRecord> recs = new ArrayList<>();
    names.forEach(n -> recs.add(orEmpty(n)));
    if (recs.stream().allMatch(r -> r.hasHolder() && r.getHolder().getLeaseId() == c.getLeaseId())) {
      return result(withAttempt(recs, c), true); // a retry after the grant: its attempt becomes the current one
    }
    List<String> mine = lease.getNamesList().stream().filter(names::contains).toList();
    if (!mine.isEmpty()) {
      boolean sameCandidacy = recs.stream().allMatch(r -> r.getCandidatesList().stream()
          .anyMatch(x -> x.getLeaseId() == c.getLeaseId() && x.getAllNamesList().equals(List.copyOf(names))));
      return sameCandidacy ? result(withAttempt(recs, c), false) : error(Code.FAILED_PRECONDITION, "lease " + c.getLeaseId()
          + " already holds or waits for " + mine + " on its own");
    }
    long fresh = recs.stream().filter(CampaignAllRule::unused).count();
    if (c.getMaxNames() > 0 && txn.nameCount() + fresh > c.getMaxNames()) {
      return error(Code.RESOURCE_EXHAUSTED, "the cluster holds " + txn.nameCount() + " names, its limit (--max-names "
          + c.getMaxNames() + ")");
    }
    TreeSet<String> leaseNames = new TreeSet<>(lease.getNamesList());
    leaseNames.addAll(names);
    txn.putLease(lease.toBuilder().clearNames().addAllNames(leaseNames).build());
    boolean allFree = recs.stream().allMatch(CampaignAllRule::unused);
    List<NameRecord> after = new ArrayList<>();
    for (NameRecord r : recs) {
      NameRecord next;
      if (allFree) {
        Holder h = Holder.newBuilder().setLeaseId(c.getLeaseId()).setValue(c.getValue()).setToken(index)
            .setSinceIndex(index).setAttempt(c.getAttempt()).build();
        next = r.toBuilder().setHolder(h).build();
        effects.event(new ChangeEvent(Kind.ELECTED, r.getName(), h, index, c.getLeaseId()));
      } else {
        next = r.toBuilder().addCandidates(Candidate.newBuilder().setLeaseId(c.getLeaseId()).setValue(c.getValue())
            .setRegisteredIndex(index).addAllAllNames(names).setAttempt(c.getAttempt())).build();
      }
      txn.putName(next);
      after.add(next);
    }
    return result(after, allFree);
  }

  /**
   * Called for a free name whose first candidate waits for several names: grants all of them when that
   * candidate is first in line for each and each is free; else leaves the name reserved.
   *
   * @return the record of {@code rec}'s name after the attempt (the other names are stored here)
   */
  NameRecord promote(NameRecord rec) {
    Candidate c = rec.getCandidates(0);
    List<NameRecord> others = new ArrayList<>();
    for (String n : c.getAllNamesList()) {
      if (n.equals(rec.getName())) {
        continue;
      }
      NameRecord o = txn.name(n);
      if (o == null || o.hasHolder() || o.getLockDelayMs() > 0 || o.getCandidatesCount() == 0
          || !sameCandidate(o.getCandidates(0), c)) {
        return rec;
      }
      others.add(o);
    }
    Holder h = Holder.newBuilder().setLeaseId(c.getLeaseId()).setValue(c.getValue()).setToken(index)
        .setSinceIndex(index).setAttempt(c.getAttempt()).build();
    for (NameRecord o : others) {
      txn.putName(o.toBuilder().setHolder(h).removeCandidates(0).build());
    }
    for (String n : c.getAllNamesList()) {
      effects.event(new ChangeEvent(Kind.ELECTED, n, h, index, c.getLeaseId()));
    }
    return rec.toBuilder().setHolder(h).removeCandidates(0).build();
  }

  /**
   * {@code recs} with {@code c}'s attempt on the lease's holders or candidacies where it is newer (docs/api.md
   * "Attempts"), stored; unchanged for a campaign without one.
   */
  private List<NameRecord> withAttempt(List<NameRecord> recs, CampaignAll c) {
    if (c.getAttempt().isEmpty()) {
      return recs;
    }
    List<NameRecord> out = new ArrayList<>();
    for (NameRecord r : recs) {
      NameRecord.Builder b = r.toBuilder();
      if (b.hasHolder() && b.getHolder().getLeaseId() == c.getLeaseId()
          && b.getHolder().getAttempt().compareTo(c.getAttempt()) < 0) {
        b.getHolderBuilder().setAttempt(c.getAttempt());
      }
      for (Candidate.Builder x : b.getCandidatesBuilderList()) {
        if (x.getLeaseId() == c.getLeaseId() && x.getAttempt().compareTo(c.getAttempt()) < 0) {
          x.setAttempt(c.getAttempt());
        }
      }
      NameRecord next = b.build();
      if (!next.equals(r)) {
        txn.putName(next);
      }
      out.add(next);
    }
    return out;
  }

  private static boolean sameCandidate(Candidate a, Candidate b) {
    return a.getLeaseId() == b.getLeaseId() && a.getRegisteredIndex() == b.getRegisteredIndex();
  }

  private NameRecord orEmpty(String name) {
    NameRecord r = txn.name(name);
    return r != null ? r : NameRecord.newBuilder().setName(name).build();
  }

  private static boolean unused(NameRecord r) {
    return !r.hasHolder() && r.getCandidatesCount() == 0 && r.getLockDelayMs() == 0;
  }

  private static Result.Builder result(List<NameRecord> recs, boolean elected) {
    return Result.newBuilder().addAllAllNames(recs).setElected(elected);
  }
}
