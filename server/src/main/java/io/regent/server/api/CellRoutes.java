package io.regent.server.api;

import io.grpc.Status;
import io.regent.server.placement.LeaseIds;
import io.regent.server.placement.Placement;
import java.util.List;
import java.util.function.Consumer;

/**
 * Which cell's services answer a call (docs/architecture.md §14, "Cells"): a name's by its tenant
 * ({@link Placement}), a lease's by the cell its id carries ({@link LeaseIds}).
 */
final class CellRoutes {
  private final Placement placement;
  private final List<CellServices> cells;

  CellRoutes(Placement placement, List<CellServices> cells) {
    if (placement.cells() != cells.size()) {
      throw new IllegalArgumentException(cells.size() + " cells' services for a placement over " + placement.cells());
    }
    this.placement = placement;
    this.cells = List.copyOf(cells);
  }

  /** The cell that holds {@code name}. */
  int cellOfName(String name) {
    return placement.cellOf(name);
  }

  /**
   * The cell of lease {@code id}.
   *
   * @throws io.grpc.StatusRuntimeException NOT_FOUND when the id names no cell of this cluster (no such lease)
   */
  int cellOfLease(long id) {
    int cell = LeaseIds.cellOf(id);
    if (cell < 0 || cell >= cells.size()) {
      throw Status.NOT_FOUND.withDescription("lease " + id + " not found").asRuntimeException();
    }
    return cell;
  }

  /**
   * Checks that lease {@code lease} (0: none, as a campaign with a TTL of its own) may hold {@code name}: a lease
   * holds names of its own cell only.
   *
   * @throws io.grpc.StatusRuntimeException FAILED_PRECONDITION naming both cells and how to grant a lease in the
   *     name's cell
   */
  void checkLeaseHolds(long lease, String name) {
    if (lease == 0) {
      return;
    }
    int leaseCell = cellOfLease(lease);
    int nameCell = cellOfName(name);
    if (leaseCell != nameCell) {
      throw Status.FAILED_PRECONDITION.withDescription("lease " + lease + " is in cell " + leaseCell + " and name '"
          + name + "' in cell " + nameCell + " (tenant '" + Placement.tenantOf(name) + "'): a lease holds names of its"
          + " own cell; grant one with tenant '" + Placement.tenantOf(name) + "' (docs/architecture.md §14)")
          .asRuntimeException();
    }
  }

  /**
   * Runs {@code call} on cell {@code cell}'s services. A re-send's seen index names an index of cell 0, the one the
   * replies report ({@link LeaderHeaders}), so another cell's call runs without it, as a first send.
   */
  void run(int cell, Consumer<CellServices> call) {
    CellServices services = cells.get(cell);
    if (cell == 0) {
      call.accept(services);
    } else {
      SeenIndexHeader.withoutSeenIndex(() -> call.accept(services));
    }
  }

  /** Every cell's services, in cell order. */
  List<CellServices> all() {
    return cells;
  }
}
