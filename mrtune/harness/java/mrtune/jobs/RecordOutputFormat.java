package mrtune.jobs;

import java.io.DataOutputStream;
import java.io.IOException;

import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapreduce.RecordWriter;
import org.apache.hadoop.mapreduce.TaskAttemptContext;
import org.apache.hadoop.mapreduce.lib.output.FileOutputFormat;

/** Writes each (FixedKey, FixedValue) pair as its 100 raw bytes: output bytes = records x 100. */
public class RecordOutputFormat extends FileOutputFormat<FixedKey, FixedValue> {
  @Override
  public RecordWriter<FixedKey, FixedValue> getRecordWriter(TaskAttemptContext context)
      throws IOException {
    Path file = getDefaultWorkFile(context, "");
    FileSystem fs = file.getFileSystem(context.getConfiguration());
    final DataOutputStream out = fs.create(file, false);
    return new RecordWriter<FixedKey, FixedValue>() {
      @Override
      public void write(FixedKey key, FixedValue value) throws IOException {
        out.write(key.getBytes(), 0, FixedKey.LENGTH);
        out.write(value.getBytes(), 0, FixedValue.LENGTH);
      }

      @Override
      public void close(TaskAttemptContext ctx) throws IOException {
        out.close();
      }
    };
  }
}
