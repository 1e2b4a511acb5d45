package io.regent.server.placement;

import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32;

/**
 * Which cell holds a name (docs/architecture.md §14, "Cells"): the name's tenant decides, so that one tenant's
 * names share a cell and a tenant's fault, flood or size stays in that cell.
 *
 * <p>A name's tenant is the text between its first {@code {} and the next {@code }} when that text is not empty
 * (Redis Cluster's hash-tag rule, so that {@code {orders}/a} and {@code {orders}/b} share a cell), else its first
 * {@code /}-separated segment ({@code payments/leader} → {@code payments}), else the whole name. A tenant's cell is
 * the CRC-32 of its UTF-8 bytes modulo the number of cells: a rule clients in any language compute alike.
 *
 * @param cells the cluster's number of cells, 1..{@link #MAX_CELLS}
 */
public record Placement(int cells) {
  /** Most cells one cluster has: lease ids keep the cell in their top bits ({@link LeaseIds}). */
  public static final int MAX_CELLS = LeaseIds.MAX_CELLS;

  /** One cell: every name in cell 0, as a cluster of a release without cells. */
  public static final Placement SINGLE = new Placement(1);

  /**
   * Validates the number of cells.
   *
   * @throws IllegalArgumentException when {@code cells} is outside 1..{@link #MAX_CELLS}
   */
  public Placement {
    if (cells < 1 || cells > MAX_CELLS) {
      throw new IllegalArgumentException("cells " + cells + " is outside 1.." + MAX_CELLS);
    }
  }

  /** The tenant of {@code name}, by the rule above; an empty name is its own (empty) tenant. */
  public static String tenantOf(String name) {
    int open = name.indexOf('{');
    if (open >= 0) {
      int close = name.indexOf('}', open + 1);
      if (close > open + 1) {
        return name.substring(open + 1, close);
      }
    }
    int slash = name.indexOf('/');
    return slash > 0 ? name.substring(0, slash) : name;
  }

  /** The cell, 0..{@code cells - 1}, that holds {@code name}. */
  public int cellOf(String name) {
    return cellOfTenant(tenantOf(name));
  }

  /** The cell, 0..{@code cells - 1}, that holds the names of {@code tenant}. */
  public int cellOfTenant(String tenant) {
    if (cells == 1) {
      return 0;
    }
    CRC32 crc = new CRC32();
    crc.update(tenant.getBytes(StandardCharsets.UTF_8));
    return (int) (crc.getValue() % cells);
  }
}
