package mrtune.jobs;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;

import org.apache.hadoop.io.Writable;

/** The 90-byte value of a 100-byte record, serialized as exactly 90 raw bytes. */
public class FixedValue implements Writable {
  public static final int LENGTH = 90;
  private final byte[] bytes = new byte[LENGTH];

  public void set(byte[] src, int offset) {
    System.arraycopy(src, offset, bytes, 0, LENGTH);
  }

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
}
