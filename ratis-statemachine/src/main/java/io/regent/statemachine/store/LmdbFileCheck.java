package io.regent.statemachine.store;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Checks an LMDB {@code data.mdb} before it is mapped: a truncated file would make the JVM fail with SIGBUS
 * on first access to a missing page, and a file that is not LMDB's would be opened as garbage.
 *
 * <p>What it reads (LMDB's on-disk format, {@code mdb.c}: {@code MDB_page} header then {@code MDB_meta}, in
 * the two meta pages 0 and 1, little-endian on x86-64): the magic {@code 0xBEEFC0DE} of both metas, and the
 * last used page of the meta with the larger transaction id, which must lie inside the file.
 */
public final class LmdbFileCheck {
  /** Smallest page size LMDB uses; the file's own is in its first meta page. */
  static final int MIN_PAGE_SIZE = 4096;
  private static final int MAGIC = 0xBEEFC0DE;
  private static final int PAGE_SIZE_OFFSET = 40;
  private static final int MAGIC_OFFSET = 16;
  private static final int LAST_PAGE_OFFSET = 136;
  private static final int TXNID_OFFSET = 144;

  private LmdbFileCheck() {
  }

  /**
   * @param dataMdb an existing {@code data.mdb}
   * @throws DataDirDamagedException when the file is too short, is not LMDB's, or ends before its last page
   */
  public static void check(Path dataMdb) {
    try (FileChannel ch = FileChannel.open(dataMdb, StandardOpenOption.READ)) {
      long size = ch.size();
      if (size < 2L * MIN_PAGE_SIZE) {
        throw new DataDirDamagedException(dataMdb, "truncated LMDB file (" + size + " bytes, less than its two meta "
            + "pages)");
      }
      int pageSize = read(ch, 0, MIN_PAGE_SIZE).getInt(PAGE_SIZE_OFFSET);
      if (pageSize < MIN_PAGE_SIZE || Integer.bitCount(pageSize) != 1 || size < 2L * pageSize) {
        throw new DataDirDamagedException(dataMdb, "not an LMDB file, or damaged (page size " + pageSize + ")");
      }
      ByteBuffer[] metas = {read(ch, 0, MIN_PAGE_SIZE), read(ch, pageSize, MIN_PAGE_SIZE)};
      long lastPage = -1;
      long txnid = -1;
      for (int m = 0; m < 2; m++) {
        if (metas[m].getInt(MAGIC_OFFSET) != MAGIC) {
          throw new DataDirDamagedException(dataMdb, "meta page " + m + " lacks LMDB's magic number: not an LMDB "
              + "file, or damaged");
        }
        long t = metas[m].getLong(TXNID_OFFSET);
        if (t > txnid) {
          txnid = t;
          lastPage = metas[m].getLong(LAST_PAGE_OFFSET);
        }
      }
      long needed = (lastPage + 1) * pageSize;
      if (lastPage < 1 || needed > size) {
        throw new DataDirDamagedException(dataMdb, "truncated LMDB file: transaction " + txnid + " uses pages up to "
            + lastPage + " (" + needed + " bytes), the file has " + size + " bytes");
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + dataMdb, e);
    }
  }

  private static ByteBuffer read(FileChannel ch, long at, int bytes) throws IOException {
    ByteBuffer b = ByteBuffer.allocate(bytes).order(ByteOrder.LITTLE_ENDIAN);
    while (b.hasRemaining() && ch.read(b, at + b.position()) > 0) {
      // until full or end of file
    }
    return b;
  }
}
