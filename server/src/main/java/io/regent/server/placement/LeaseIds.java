package io.regent.server.placement;

/**
 * Lease ids carry their cell (docs/architecture.md §14, "Cells"): a lease of cell {@code c} has the id
 * {@code c << 48 | n}, where {@code n} is what that cell's state machine numbers it. Cell 0's ids are therefore
 * the ids of a cluster without cells, and any node finds a lease's cell from its id alone.
 */
public final class LeaseIds {
  /** Bits of a lease id that a cell numbers its leases with. */
  static final int LOCAL_BITS = 48;
  /** Most cells: the cell sits in bits 48..62, and ids stay positive (etcd's lease ids are signed). */
  static final int MAX_CELLS = 1 << (63 - LOCAL_BITS);

  private LeaseIds() {
  }

  /** The first lease id of {@code cell}: its state machine numbers leases from here up. */
  public static long base(int cell) {
    return (long) cell << LOCAL_BITS;
  }

  /** The cell of lease {@code id}; an id outside every cell (negative, say) maps to no cell: -1. */
  public static int cellOf(long id) {
    return id < 0 ? -1 : (int) (id >>> LOCAL_BITS);
  }
}
