package mrtune.jobs;

import java.io.IOException;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapreduce.InputSplit;
import org.apache.hadoop.mapreduce.RecordReader;
import org.apache.hadoop.mapreduce.TaskAttemptContext;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.apache.hadoop.mapreduce.lib.input.FileSplit;

/**
 * Reads files of fixed 100-byte records (10-byte key, 90-byte value, no separators). A split
 * owns the records whose first byte lies in [start, start + length), so every record is read
 * exactly once whatever the split size.
 */
public class RecordInputFormat extends FileInputFormat<FixedKey, FixedValue> {
  public static final int RECORD_LENGTH = FixedKey.LENGTH + FixedValue.LENGTH;

  /** Number of records a split owns (records starting inside it). */
  public static long recordsIn(FileSplit split) {
    long first = (split.getStart() + RECORD_LENGTH - 1) / RECORD_LENGTH;
    long end = (split.getStart() + split.getLength() + RECORD_LENGTH - 1) / RECORD_LENGTH;
    return end - first;
  }

  @Override
  public RecordReader<FixedKey, FixedValue> createRecordReader(InputSplit split,
      TaskAttemptContext context) {
    return new Reader();
  }

  static class Reader extends RecordReader<FixedKey, FixedValue> {
    private FSDataInputStream in;
    private long pos;
    private long end;
    private long total;
    private long start;
    private final byte[] buf = new byte[RECORD_LENGTH];
    private final FixedKey key = new FixedKey();
    private final FixedValue value = new FixedValue();

    @Override
    public void initialize(InputSplit genericSplit, TaskAttemptContext context)
        throws IOException {
      FileSplit split = (FileSplit) genericSplit;
      Configuration conf = context.getConfiguration();
      Path file = split.getPath();
      FileSystem fs = file.getFileSystem(conf);
      long fileLen = fs.getFileStatus(file).getLen();
      start = (split.getStart() + RECORD_LENGTH - 1) / RECORD_LENGTH * RECORD_LENGTH;
      long splitEnd = split.getStart() + split.getLength();
      long lastStart = (splitEnd + RECORD_LENGTH - 1) / RECORD_LENGTH * RECORD_LENGTH;
      end = Math.min(lastStart, fileLen / RECORD_LENGTH * RECORD_LENGTH);
      total = Math.max(1, end - start);
      in = fs.open(file, 1 << 16);
      in.seek(start);
      pos = start;
    }

    @Override
    public boolean nextKeyValue() throws IOException {
      if (pos >= end) {
        return false;
      }
      in.readFully(buf, 0, RECORD_LENGTH);
      key.set(buf, 0);
      value.set(buf, FixedKey.LENGTH);
      pos += RECORD_LENGTH;
      return true;
    }

    @Override
    public FixedKey getCurrentKey() {
      return key;
    }

    @Override
    public FixedValue getCurrentValue() {
      return value;
    }

    @Override
    public float getProgress() {
      return Math.min(1.0f, (pos - start) / (float) total);
    }

    @Override
    public void close() throws IOException {
      if (in != null) {
        in.close();
      }
    }
  }
}
