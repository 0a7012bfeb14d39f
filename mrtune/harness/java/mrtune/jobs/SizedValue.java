package mrtune.jobs;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;

import org.apache.hadoop.io.Writable;
import org.apache.hadoop.io.WritableUtils;

/**
 * A value of any length, serialized as a vint length and the raw bytes: the selectivity job's
 * map output when {@code mrtune.selectivity.value.bytes} asks for records narrower or wider
 * than 100 bytes (a machine benchmark needs several record widths to tell per-byte from
 * per-record costs apart).
 */
public class SizedValue implements Writable {
  private byte[] bytes = new byte[0];
  private int length;

  /** Fills {@code n} bytes by repeating {@code src}'s first {@code srcLength} bytes. */
  public void fill(byte[] src, int srcLength, int n) {
    if (bytes.length < n) {
      bytes = new byte[n];
    }
    for (int i = 0; i < n; i += srcLength) {
      System.arraycopy(src, 0, bytes, i, Math.min(srcLength, n - i));
    }
    length = n;
  }

  public byte[] getBytes() {
    return bytes;
  }

  public int getLength() {
    return length;
  }

  @Override
  public void write(DataOutput out) throws IOException {
    WritableUtils.writeVInt(out, length);
    out.write(bytes, 0, length);
  }

  @Override
  public void readFields(DataInput in) throws IOException {
    length = WritableUtils.readVInt(in);
    if (bytes.length < length) {
      bytes = new byte[length];
    }
    in.readFully(bytes, 0, length);
  }
}
