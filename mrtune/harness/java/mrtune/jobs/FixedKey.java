package mrtune.jobs;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;

import org.apache.hadoop.io.BinaryComparable;
import org.apache.hadoop.io.WritableComparable;
import org.apache.hadoop.io.WritableComparator;

/**
 * The 10-byte key of a TeraGen-style 100-byte record. Serialized as exactly 10 raw bytes (no
 * length prefix), so a map output record (key + {@link FixedValue}) is exactly 100 bytes and
 * the sort buffer holds floor(softLimit / (100 + 16)) records per spill. BinaryComparable, so
 * TotalOrderPartitioner uses its trie, as TeraSort does.
 */
public class FixedKey extends BinaryComparable implements WritableComparable<BinaryComparable> {
  public static final int LENGTH = 10;
  private final byte[] bytes = new byte[LENGTH];

  public FixedKey() {}

  public void set(byte[] src, int offset) {
    System.arraycopy(src, offset, bytes, 0, LENGTH);
  }

  @Override
  public int getLength() {
    return LENGTH;
  }

  @Override
  public byte[] getBytes() {
    return bytes;
  }

  @Override
  public void write(DataOutput out) throws IOException {
    out.write(bytes, 0, LENGTH);
  }

  @Override
  public void readFields(DataInput in) throws IOException {
    in.readFully(bytes, 0, LENGTH);
  }

  @Override
  public int hashCode() {
    return WritableComparator.hashBytes(bytes, LENGTH);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof FixedKey && super.equals(o);
  }

  /** Raw comparator: unsigned lexicographic order of the 10 serialized bytes. */
  public static class Comparator extends WritableComparator {
    public Comparator() {
      super(FixedKey.class);
    }

    @Override
    public int compare(byte[] b1, int s1, int l1, byte[] b2, int s2, int l2) {
      return compareBytes(b1, s1, LENGTH, b2, s2, LENGTH);
    }
  }

  static {
    WritableComparator.define(FixedKey.class, new Comparator());
  }
}
